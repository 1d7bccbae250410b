import { defineConfig } from "vitest/config";

// Only the golden recording (not part of `npm test`): see behaviour.golden.ts.
export default defineConfig({ test: { include: ["test/golden/*.golden.ts"], testTimeout: 600_000 } });
