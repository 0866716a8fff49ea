import type { TokenScope } from "@billing/shared";
import { describe, expect, it } from "vitest";
import type { Meta } from "../src/context.js";
import { scopeAllows, scopeNeeded } from "../src/middleware/scope.js";
import { appRouter } from "../src/routers/index.js";

/**
 * The scope every procedure needs, read from the router itself (no server): what a finance team does
 * (docs/decisions.md, "Token scopes": payments, voids, finalization, credit notes, grants, runs, exports), the
 * mutations that only read, and every other mutation (configuration: customers, contracts' terms, meters, tax
 * rates, plans, webhook endpoints, …) `write`. A new mutation is `write` unless added here on purpose.
 * scopes.test.ts proves the same over REST.
 */
const FINANCE = [
  "billing.run",
  "collection.collect",
  "creditNotes.create",
  "credits.cancelRecurrence",
  "credits.grant",
  "credits.void",
  "exports.create",
  "invoicePayments.pay",
  "invoicePayments.void",
  "invoices.finalize",
  "invoices.preview",
  "testClock.advance",
];
const READ_ONLY_MUTATIONS = ["invoices.simulate", "plans.simulate"];

const procedures = Object.entries(
  appRouter._def.procedures as unknown as Record<string, { _def: { type: string; meta?: Meta } }>,
)
  .filter(([name]) => !name.startsWith("admin."))
  .map(([name, { _def }]) => ({ name, type: _def.type, needed: scopeNeeded(_def.type, _def.meta) }));

const expected = (name: string, type: string): TokenScope =>
  type !== "mutation" || READ_ONLY_MUTATIONS.includes(name) ? "read" : FINANCE.includes(name) ? "finance" : "write";

describe("the scope each procedure needs", () => {
  it("is read for every query, finance for a finance team's work, write for every other mutation", () => {
    expect(procedures.length).toBeGreaterThan(90);
    const table = Object.fromEntries(procedures.map(({ name, needed }) => [name, needed]));
    expect(table).toEqual(Object.fromEntries(procedures.map(({ name, type }) => [name, expected(name, type)])));
    // Every listed procedure exists: a rename is caught here, not left as a stale entry.
    for (const name of [...FINANCE, ...READ_ONLY_MUTATIONS]) expect(table[name], name).toBeDefined();
    const mutations = procedures.filter(({ type }) => type === "mutation");
    // 12 finance, 2 read-only: every other mutation writes configuration or the account's data.
    expect(mutations.filter(({ needed }) => needed === "finance")).toHaveLength(12);
    expect(mutations.filter(({ needed }) => needed === "write").length).toBe(mutations.length - 14);
  });

  it("is granted to each scope as the rule says: read only reads, finance also its work, write everything", () => {
    const refusedTo = (scope: TokenScope) =>
      procedures.filter(({ needed }) => !scopeAllows(scope, needed)).map(({ name }) => name);
    const writes = procedures.filter(({ needed }) => needed === "write").map(({ name }) => name);
    expect(refusedTo("write")).toEqual([]);
    expect(refusedTo("finance")).toEqual(writes);
    expect(refusedTo("read").sort()).toEqual([...writes, ...FINANCE].sort());
    // None a finance token is refused is its work, and no configuration is within its reach.
    for (const name of [
      "meters.create",
      "taxRates.update",
      "plans.create",
      "contracts.update",
      "webhookEndpoints.create",
    ])
      expect(refusedTo("finance")).toContain(name);
  });
});
