// Bundles the SDK into dist/ as ESM (index.js) and CommonJS (index.cjs), each with its declarations (index.d.ts,
// index.d.cts). What it takes from @billing/shared (a workspace package users do not have) is inlined, from the JS
// and declarations `build:shared` emits: constants at run time, the schemas' types in the declarations. tRPC's
// client (and the few modules of @trpc/server it runs) is inlined too, so that the package depends on zod alone:
// @trpc/client names `typescript` as a peer, which npm and pnpm would otherwise install into every app, plain JS
// ones included (issue 40, 8). zod stays an import, of the declarations only.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { dts } from "rollup-plugin-dts";

const shared = fileURLToPath(new URL(".build/shared/", import.meta.url));
const trpcModule = /^(@trpc\/(?:client|server))(\/[^/].*)?$/;
const external = (id) => !id.startsWith(".") && !id.startsWith("/") && id !== "@billing/shared" && !trpcModule.test(id);

const requireHere = createRequire(import.meta.url);
const trpcClient = dirname(requireHere.resolve("@trpc/client/package.json"));
const trpcServer = dirname(createRequire(`${trpcClient}/`).resolve("@trpc/server/package.json"));
/**
 * tRPC's files, whose unused parts (subscriptions, WebSockets) are left out: @trpc/server declares `"sideEffects":
 * false`, and @trpc/client's modules (11.25) touch only their own functions and classes as they load.
 */
const isTrpc = (id) => id.startsWith(`${trpcClient}/`) || id.startsWith(`${trpcServer}/`);

/** Resolves `@billing/shared` to its compiled JS, whose modules only matter for the exports the SDK uses. */
const inlineShared = {
  name: "inline-shared",
  resolveId: (id) => (id === "@billing/shared" ? `${shared}index.js` : null),
};

/** The ESM file of a tRPC module (`@trpc/server/observable`), through its package's `exports`, as node would. */
const inlineTrpc = {
  name: "inline-trpc",
  resolveId(id, importer) {
    const match = trpcModule.exec(id);
    if (!match) return null;
    const [, name, subpath = ""] = match;
    const manifest = createRequire(importer ?? import.meta.url).resolve(`${name}/package.json`);
    const target = JSON.parse(readFileSync(manifest, "utf8")).exports[`.${subpath}`]?.import?.default;
    if (typeof target !== "string") throw new Error(`${id}: no ESM file in ${manifest}'s exports`);
    return join(dirname(manifest), target);
  },
};

/** tRPC's license, as its MIT terms ask of a copy of its code: dist/LICENSE-trpc.txt. */
const trpcLicense = {
  name: "trpc-license",
  generateBundle() {
    const license = readFileSync(join(trpcClient, "LICENSE"), "utf8");
    const notice =
      "dist/index.js and dist/index.cjs include code of @trpc/client and @trpc/server, under this license:";
    const source = `${notice}\n\n${license}`;
    this.emitFile({ type: "asset", fileName: "LICENSE-trpc.txt", source });
  },
};

export default [
  {
    input: ".build/client/index.js",
    external,
    plugins: [inlineShared, inlineTrpc],
    // The shared modules build zod schemas as they load, which the SDK never reads at run time: building one is pure.
    // So is tRPC's code (isTrpc).
    treeshake: {
      moduleSideEffects: (id) => id !== "zod" && !id.startsWith(shared) && !isTrpc(id),
      manualPureFunctions: ["z"],
    },
    output: [
      { file: "dist/index.js", format: "es", plugins: [trpcLicense] },
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
