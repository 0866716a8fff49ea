// Bundles the SDK into dist/ as ESM (index.js) and CommonJS (index.cjs), each with its declarations (index.d.ts,
// index.d.cts). What it takes from @billing/shared (a workspace package users do not have) is inlined, from the JS
// and declarations `build:shared` emits: constants at run time, the schemas' types in the declarations. The
// package's dependencies stay imports: @trpc/client at run time, zod in the declarations only.
import { fileURLToPath } from "node:url";
import { dts } from "rollup-plugin-dts";

const shared = fileURLToPath(new URL(".build/shared/", import.meta.url));
const external = (id) => !id.startsWith(".") && !id.startsWith("/") && id !== "@billing/shared";

/** Resolves `@billing/shared` to its compiled JS, whose modules only matter for the exports the SDK uses. */
const inlineShared = {
  name: "inline-shared",
  resolveId: (id) => (id === "@billing/shared" ? `${shared}index.js` : null),
};

export default [
  {
    input: ".build/client/index.js",
    external,
    plugins: [inlineShared],
    // The shared modules build zod schemas as they load, which the SDK never reads at run time: building one is pure.
    treeshake: { moduleSideEffects: (id) => id !== "zod" && !id.startsWith(shared), manualPureFunctions: ["z"] },
    output: [
      { file: "dist/index.js", format: "es" },
      { file: "dist/index.cjs", format: "cjs" },
    ],
  },
  {
    input: "src/index.ts",
    external,
    output: [
      { file: "dist/index.d.ts", format: "es" },
      { file: "dist/index.d.cts", format: "es" },
    ],
    plugins: [
      dts({
        respectExternal: true,
        tsconfig: "tsconfig.json",
        compilerOptions: { noEmit: false, paths: { "@billing/shared": ["./.build/shared/index.d.ts"] } },
      }),
    ],
  },
];
