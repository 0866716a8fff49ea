// Bundles the SDK's declarations into one dist/index.d.ts. The shared schemas' types are inlined (from the
// declarations `build:shared-types` emits), so users need no workspace package; zod and @trpc/client stay imports.
import { dts } from "rollup-plugin-dts";

export default {
  input: "src/index.ts",
  output: { file: "dist/index.d.ts", format: "es" },
  external: (id) => !id.startsWith(".") && !id.startsWith("/") && id !== "@billing/shared",
  plugins: [
    dts({
      respectExternal: true,
      tsconfig: "tsconfig.json",
      compilerOptions: { noEmit: false, paths: { "@billing/shared": ["./.types/shared/index.d.ts"] } },
    }),
  ],
};
