import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../src/http/openapi.js";
import { appRouter } from "../src/routers/index.js";
import { BAD_INPUT_GROUPS, groupsOfTags, isJsonOperation } from "./support/bad-input-suite.js";

/**
 * The bad-input test is split by OpenAPI tag into test/bad-input.<group>.test.ts (test/support/bad-input-suite.ts).
 * No server: the document is built from the router, so a new operation whose tag no group lists — and which no file
 * would then ever try — fails here at once, as does a tag listed by two groups (its operations tried twice).
 */
describe("the split of the bad-input test", () => {
  const document = buildOpenApiDocument(appRouter, "http://localhost");
  const operations = Object.entries(document.paths ?? {}).flatMap(([path, byMethod]) =>
    Object.entries(byMethod as Record<string, { tags?: string[]; responses: Record<string, { content?: object }> }>)
      .filter(([, operation]) => isJsonOperation(operation))
      .map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, tags: operation.tags ?? [] })),
  );

  it("puts every operation of the OpenAPI document in exactly one group", () => {
    expect(operations.length).toBeGreaterThanOrEqual(100);
    const misplaced = operations
      .map(({ name, tags }) => ({ name, tags, groups: groupsOfTags(tags) }))
      .filter(({ groups }) => groups.length !== 1);
    expect(misplaced).toEqual([]);
  });

  it("lists no tag the document no longer has, and none in two groups", () => {
    const documented = new Set(operations.flatMap(({ tags }) => tags));
    const listed = Object.values(BAD_INPUT_GROUPS).flat();
    expect(listed.filter((tag) => !documented.has(tag))).toEqual([]);
    expect(listed.filter((tag, index) => listed.indexOf(tag) !== index)).toEqual([]);
  });

  it("has one file per group, and no file outside the groups", () => {
    const files = readdirSync(new URL(".", import.meta.url)).filter((file) =>
      /^bad-input\.[\w-]+\.test\.ts$/.test(file),
    );
    const expected = Object.keys(BAD_INPUT_GROUPS).map((group) => `bad-input.${group}.test.ts`);
    expect(files.filter((file) => file !== "bad-input.coverage.test.ts").sort()).toEqual(expected.sort());
  });
});
