import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { procedures } from "./support/procedures.js";
import { EXEMPT, TENANT_ISOLATION_GROUPS } from "./support/tenant-isolation/suite.js";

/**
 * The tenant-isolation test is split by router into test/tenant-isolation.<group>.test.ts (their tables:
 * test/support/tenant-isolation/). No server: a new procedure that no group tries — and that no file would then ever
 * try — fails here at once, as does one tried by two groups (or two routers' tables), or a router split over groups.
 */
describe("the split of the tenant-isolation test", () => {
  const entries = Object.entries(TENANT_ISOLATION_GROUPS).flatMap(([group, byRouter]) =>
    Object.entries(byRouter).flatMap(([router, tried]) => Object.keys(tried).map((path) => ({ group, router, path }))),
  );

  it("tries every procedure of the router in exactly one group, or names it exempt with the reason", () => {
    const tried = entries.map(({ path }) => path);
    expect(tried.filter((path, index) => tried.indexOf(path) !== index)).toEqual([]);
    expect(Object.keys(procedures).sort()).toEqual([...tried, ...Object.keys(EXEMPT)].sort());
    for (const path of tried) expect(procedures[path]!._def.meta?.openapi, `${path} has a REST route`).toBeDefined();
  });

  it("keeps each procedure in its router's table, and each router in one group", () => {
    expect(entries.filter(({ router, path }) => !path.startsWith(`${router}.`))).toEqual([]);
    const routers = Object.values(TENANT_ISOLATION_GROUPS).flatMap((byRouter) => Object.keys(byRouter));
    expect(routers.filter((router, index) => routers.indexOf(router) !== index)).toEqual([]);
  });

  it("has one file per group, and no file outside the groups", () => {
    const files = readdirSync(new URL(".", import.meta.url)).filter((file) =>
      /^tenant-isolation\.[\w-]+\.test\.ts$/.test(file),
    );
    const expected = Object.keys(TENANT_ISOLATION_GROUPS).map((group) => `tenant-isolation.${group}.test.ts`);
    expect(files.filter((file) => file !== "tenant-isolation.coverage.test.ts").sort()).toEqual(expected.sort());
  });
});
