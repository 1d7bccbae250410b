/** The text opencode's own recovery tools put where content was lost (oh-my-opencode's placeholder). */
export const INTERRUPTED_PLACEHOLDER = "[user interrupted]";
/** What replaces tool output that could not be recovered. */
export const CORRUPTED_OUTPUT_PLACEHOLDER = "[Tool output corrupted - original truncated]";
