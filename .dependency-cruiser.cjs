// The layers of src/ (docs/architecture.md): each top folder may import only the folders below it, and no file may
// import itself through a cycle. `npm run lint` runs this check in CI; type-only imports count too.
const LAYERS = {
  model: [],
  errors: [],
  fs: ["errors"],
  provider: ["model", "errors"],
  rules: ["model", "provider", "errors"],
  stores: ["model", "fs", "errors"],
  scan: ["rules", "model", "provider", "stores", "fs", "errors"],
  plan: ["scan", "rules", "model", "provider", "errors"],
  txn: ["plan", "stores", "model", "fs", "errors"],
  checkpoint: ["txn", "stores", "model", "fs", "errors"],
  battle: ["checkpoint", "txn", "stores", "model", "fs", "errors"],
  // The agents' hooks (recover hooks install): config files written through the transaction layer.
  hooks: ["txn", "stores", "model", "fs", "errors"],
  // The loader of the bundle (bin/recover → dist/launch.cjs): it runs before, and apart from, everything else.
  launch: [],
};

// A layer is a folder (src/rules/) or a single file (src/errors.ts).
const layerPath = (name) => `^src/${name}(/|\\.ts$)`;

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A file that reaches itself through its imports: the two halves belong in one file, or one side is in the wrong layer.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    ...Object.entries(LAYERS).map(([layer, allowed]) => ({
      name: `layer-${layer}`,
      severity: "error",
      comment: `src/${layer} may import only: ${allowed.join(", ") || "nothing else in src"} (docs/architecture.md)`,
      from: { path: layerPath(layer) },
      to: { path: "^src/", pathNot: [layerPath(layer), ...allowed.map(layerPath)] },
    })),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
