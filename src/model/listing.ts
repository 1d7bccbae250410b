/** A few of many ids in a sentence: "a, b, c and 4 more". */
export function someOf(ids: readonly string[], shown = 3): string {
  return ids.length <= shown ? ids.join(", ") : `${ids.slice(0, shown).join(", ")} and ${ids.length - shown} more`;
}
