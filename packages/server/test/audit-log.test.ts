import { describe, expect, it } from "vitest";
import { AUDITED_INVOICE_IDS, auditSubjectOf } from "../src/domain/audit.js";
import { purgeExpiredRecords } from "../src/services/expiry-purge.js";
import { expectError } from "./support/assertions.js";
import { useTestServer } from "./support/harness.js";
import { ADMIN_TOKEN } from "./support/server.js";

/**
 * The audit log (docs/decisions.md, "The audit log"): one entry per call that changed something, newest first, with
 * its actor, procedure, resource, request id, Idempotency-Key and the names (never the values) of the fields sent.
 */
const server = useTestServer();
const MONTHLY = { duration: { unit: "MONTH", value: 1 }, billingDay: 1 };

/** A new account, its first token and that token's id. */
async function newAccount() {
  const { body } = await server.rest("POST", "/admin/accounts", { token: ADMIN_TOKEN, body: { name: "Audited Co" } });
  return { accountId: body.account.id as string, token: body.token as string, tokenId: body.tokenId as string };
}

const auditLog = async (token: string, query = "") => {
  const { status, body } = await server.rest("GET", `/audit-log${query}`, { token });
  expect(status).toBe(200);
  return body as { entries: any[]; hasMore: boolean; nextCursor?: string };
};

describe("the audit log", () => {
  it("records a change once: actor, procedure, resource, request id, field names; never values", async () => {
    const account = await newAccount();
    const headers = { "idempotency-key": "create-acme-1", "x-request-id": "req-audit-1" };
    const body = { name: "Acme", taxId: "DE-SECRET-123" };
    const created = await server.rest("POST", "/customers", { token: account.token, body, headers });
    expect(created.status).toBe(201);
    // The same key again is a replay: it changed nothing, so it appends nothing.
    const replayed = await server.rest("POST", "/customers", { token: account.token, body, headers });
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    const customerId = created.body.customer.id;
    const path = `/customers/${customerId}`;
    expect((await server.rest("PATCH", path, { token: account.token, body: { name: "Acme Ltd" } })).status).toBe(200);

    const { entries, hasMore } = await auditLog(account.token, `?actor=${account.tokenId}`);
    expect(hasMore).toBe(false);
    expect(entries).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        at: expect.any(String),
        actor: { type: "token", tokenId: account.tokenId, scope: "write" },
        action: "customers.update",
        resource: { type: "customer", id: customerId },
        references: [],
        changes: ["name"],
        requestId: expect.any(String),
        idempotencyKey: null,
      },
      {
        id: expect.any(String),
        at: expect.any(String),
        actor: { type: "token", tokenId: account.tokenId, scope: "write" },
        action: "customers.create",
        resource: { type: "customer", id: customerId },
        references: [],
        changes: ["name", "taxId"],
        requestId: "req-audit-1",
        idempotencyKey: "create-acme-1",
      },
    ]);
    expect(Date.parse(entries[0].at)).toBeGreaterThanOrEqual(Date.parse(entries[1].at));
    expect(JSON.stringify(entries)).not.toContain("DE-SECRET-123");
  });

  it("records nothing for reads, refusals, simulations and usage ingestion (only the customer made)", async () => {
    const account = await newAccount();
    const { token } = account;
    await server.rest("GET", "/customers", { token });
    expectError(await server.rest("POST", "/customers", { token, body: { name: "" } }), 400, "BAD_REQUEST");
    const unknown = "/customers/0123456789abcdef01234567";
    expectError(await server.rest("PATCH", unknown, { token, body: { name: "x" } }), 404, "NOT_FOUND");
    const customer = (await server.rest("POST", "/customers", { token, body: { name: "Sim" } })).body.customer;
    const simulation = {
      customerId: customer.id,
      startDate: "2024-01-01T00:00:00Z",
      endDate: "2024-02-01T00:00:00Z",
      products: [{ displayName: "Flat", pricing: { type: "FLAT", price: 5 } }],
    };
    expect((await server.rest("POST", "/invoices/simulate", { token, body: simulation })).status).toBe(200);
    const event = { ref: "audit-e1", name: "api_call", timestamp: "2024-01-10T00:00:00Z", customerAlias: "nobody" };
    expect((await server.rest("POST", "/events", { token, body: { events: [event] } })).status).toBeLessThan(300);
    const { entries } = await auditLog(token, `?actor=${account.tokenId}`);
    expect(entries.map((entry) => entry.action)).toEqual(["customers.create"]);
  });

  it("finds entries by resource (changed or named), actor, action, time window, a page at a time", async () => {
    const account = await newAccount();
    const { token } = account;
    const second = await server.rest("POST", `/admin/accounts/${account.accountId}/tokens`, {
      token: ADMIN_TOKEN,
      body: { scope: "write" },
    });
    const customer = (await server.rest("POST", "/customers", { token, body: { name: "Found Co" } })).body.customer;
    const windowStart = new Date().toISOString();
    const contract = {
      name: "Main",
      customerId: customer.id,
      startDate: "2024-01-01T00:00:00Z",
      products: [{ displayName: "Fee", scheduling: MONTHLY, pricing: { type: "FLAT", price: 10 } }],
    };
    const made = await server.rest("POST", "/contracts", { token: second.body.token, body: contract });
    expect(made.status).toBe(201);
    const rate = { code: "VAT", name: "VAT", rate: 20 };
    expect((await server.rest("POST", "/tax-rates", { token, body: rate })).status).toBe(201);

    // The contract's entry names its customer: both are found by the customer's id.
    const byCustomer = await auditLog(token, `?resourceId=${customer.id}`);
    expect(byCustomer.entries.map((entry) => entry.action)).toEqual(["contracts.create", "customers.create"]);
    expect(byCustomer.entries[0]).toMatchObject({
      resource: { type: "contract", id: made.body.contract.id },
      references: [{ type: "customer", id: customer.id }],
      actor: { type: "token", tokenId: second.body.tokenId },
    });
    const bySecond = await auditLog(token, `?actor=${second.body.tokenId}`);
    expect(bySecond.entries.map((entry) => entry.action)).toEqual(["contracts.create"]);
    // The operator's account and token creations are in the account's log too.
    expect((await auditLog(token, "?actor=operator")).entries.map((entry) => entry.action)).toEqual([
      "admin.createToken",
      "admin.createAccount",
    ]);
    // By procedure (its own index), also within a time window; not with actor or resourceId (400 naming action).
    const byAction = await auditLog(token, "?action=contracts.create");
    expect(byAction.entries.map((entry) => entry.resource)).toEqual([{ type: "contract", id: made.body.contract.id }]);
    expect((await auditLog(token, `?action=admin.createToken&to=${windowStart}`)).entries).toHaveLength(1);
    expect((await auditLog(token, `?action=customers.create&from=${windowStart}`)).entries).toEqual([]);
    expectError(await server.rest("GET", "/audit-log?action=", { token }), 400, "BAD_REQUEST");
    const combined = await server.rest("GET", "/audit-log?action=contracts.create&actor=operator", { token });
    expectError(combined, 400, "BAD_REQUEST");
    expect(JSON.stringify(combined.body)).toContain("action");
    const windowed = await auditLog(token, `?from=${windowStart}&to=${new Date(Date.now() + 1000).toISOString()}`);
    expect(windowed.entries.map((entry) => entry.action)).toEqual(["taxRates.create", "contracts.create"]);
    expect((await auditLog(token, `?to=${windowStart}`)).entries.map((entry) => entry.action)).toEqual([
      "customers.create",
      "admin.createToken",
      "admin.createAccount",
    ]);

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await auditLog(token, `?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.entries.map((entry) => entry.action));
      cursor = page.nextCursor;
    } while (cursor);
    const all = (await auditLog(token, "?limit=100")).entries.map((entry) => entry.action);
    expect(seen).toEqual(all);
    expect(all).toHaveLength(5);
    const backwards = await server.rest("GET", "/audit-log?from=2025-01-02T00:00:00Z&to=2025-01-01T00:00:00Z", {
      token,
    });
    expectError(backwards, 400, "BAD_REQUEST");
  });

  it("records the operator's changes to an account, and a token revocation in the token's account", async () => {
    const account = await newAccount();
    const path = `/admin/accounts/${account.accountId}`;
    expect((await server.rest("PATCH", path, { token: ADMIN_TOKEN, body: { legalName: "Renamed" } })).status).toBe(200);
    const revoke = await server.rest("DELETE", `/admin/tokens/${account.tokenId}`, { token: ADMIN_TOKEN });
    expect(revoke.status).toBe(200);
    const other = await server.rest("POST", `${path}/tokens`, { token: ADMIN_TOKEN, body: {} });
    const { entries } = await auditLog(other.body.token, "?actor=operator");
    expect(entries.map(({ action, resource, references }) => ({ action, resource, references }))).toEqual([
      {
        action: "admin.createToken",
        resource: { type: "token", id: other.body.tokenId },
        references: [{ type: "account", id: account.accountId }],
      },
      { action: "admin.revokeToken", resource: { type: "token", id: account.tokenId }, references: [] },
      { action: "admin.updateAccount", resource: { type: "account", id: account.accountId }, references: [] },
      { action: "admin.createAccount", resource: { type: "account", id: account.accountId }, references: [] },
    ]);
  });

  it("a billing run's entry names the invoices it made; entries past their retention are purged", async () => {
    const account = await newAccount();
    const { token } = account;
    const customer = (await server.rest("POST", "/customers", { token, body: { name: "Billed" } })).body.customer;
    const contract = {
      name: "Main",
      customerId: customer.id,
      startDate: "2024-01-01T00:00:00Z",
      products: [{ displayName: "Fee", scheduling: MONTHLY, pricing: { type: "FLAT", price: 10 } }],
    };
    expect((await server.rest("POST", "/contracts", { token, body: contract })).status).toBe(201);
    const run = await server.rest("POST", "/billing-runs", { token, body: { at: "2024-03-01T00:00:00Z" } });
    expect(run.body.run.invoiceIds.length).toBeGreaterThan(0);
    const [entry] = (await auditLog(token, "?limit=1")).entries;
    expect(entry).toMatchObject({
      action: "billing.run",
      resource: null,
      references: run.body.run.invoiceIds.map((id: string) => ({ type: "invoice", id })),
      changes: ["at"],
    });
    // 400 days by default: a purge a day short keeps them, one past it deletes them.
    const DAY = 86_400_000;
    await purgeExpiredRecords(server.service.repositories, new Date(Date.now() + 399 * DAY));
    expect((await auditLog(token)).entries.length).toBeGreaterThan(0);
    await purgeExpiredRecords(server.service.repositories, new Date(Date.now() + 401 * DAY));
    expect((await auditLog(token)).entries).toEqual([]);
  });
});

describe("the subject of an audited call (pure)", () => {
  it("the answer's first resource, the path's other ids, and the names of the fields sent", () => {
    const input = { invoiceId: "inv1", amount: 5, reference: undefined, method: "WIRE", taxId: "DE1" };
    const answer = { payment: { id: "pay1", amount: 5 }, invoice: { id: "inv1" } };
    expect(auditSubjectOf(input, answer, ["invoiceId"])).toEqual({
      resource: { type: "payment", id: "pay1" },
      references: [{ type: "invoice", id: "inv1" }],
      changes: ["amount", "method", "taxId"],
    });
    // The path's ids are references whatever their name; no other `…Id` field is (a tax id is data).
    expect(auditSubjectOf({ meterId: "m1", taxId: "DE1" }, {}, ["meterId"]).references).toEqual([
      { type: "meter", id: "m1" },
    ]);
    expect(auditSubjectOf(undefined, { deleted: true })).toEqual({ resource: null, references: [], changes: [] });
  });

  it("a run names at most AUDITED_INVOICE_IDS of its invoices", () => {
    const invoiceIds = Array.from({ length: 150 }, (_, i) => `inv${i}`);
    const subject = auditSubjectOf({ at: "2024-01-01T00:00:00Z" }, { run: { invoiceIds } });
    expect(subject.references).toHaveLength(AUDITED_INVOICE_IDS);
    expect(subject.references[99]).toEqual({ type: "invoice", id: "inv99" });
  });
});
