/** The CLI names the tool's identity here; it lives in model/ so that txn/ (backup manifests) can record it too. */
export { TOOL, TOOL_VERSION } from "../model/tool.js";
