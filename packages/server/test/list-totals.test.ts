import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRepositories } from "../src/repositories/index.js";
import { compactListTotals, LIST_COUNT_SETTLE_MS } from "../src/services/list-totals.js";
import { billingAccount, committed } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { type TestServer, walkRestPages } from "./support/server.js";

/**
 * List totals kept by counts (repositories/list-counts.ts) equal the items the list holds, whatever the interleaving
 * of creates, deletes and compactions (concurrent ones included), at every cursor, on both transports.
 */

const server = useTestServer();

/**
 * Compactions in these tests count documents older than this: every create of the test stores its document well
 * within it (the service's own bound is LIST_COUNT_SETTLE_MS, 10 minutes).
 */
const SETTLE_MS = 3_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const roundArb = fc.record({
  customers: fc.integer({ min: 0, max: 3 }),
  contracts: fc.integer({ min: 0, max: 3 }),
  /** Positions among the live contracts (modulo their number), repeats included: concurrent deletes of one. */
  deletes: fc.array(fc.nat(20), { maxLength: 3 }),
  /** Concurrent compactions, each counting at most `step` documents per stream. */
  compactions: fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 3 }),
  pauseMs: fc.constantFrom(0, 0, 1_500),
});

async function newAccountWithCustomer(testServer: TestServer) {
  const account = await testServer.newAccount();
  const created = await testServer.rest("POST", "/customers", { token: account.token, body: { name: "first" } });
  return { ...account, customerIds: [created.body.customer.id as string] };
}

/** Every page's total (REST, walking every page) is the number of items walked; tRPC at a deep cursor agrees. */
async function expectTotals(token: string, expected: { customers: number; contracts: number }) {
  for (const [path, key] of [
    ["/customers", "customers"],
    ["/contracts", "contracts"],
  ] as const) {
    const walked = await walkRestPages(server, token, path, key, 2);
    expect(walked.ids.length).toBe(expected[key]);
    expect(new Set(walked.totals)).toEqual(new Set([expected[key]]));
  }
  const trpc = server.trpc(token);
  const first = await trpc.customers.list.query({ limit: 1 });
  const deep = first.nextCursor ? await trpc.customers.list.query({ limit: 1, cursor: first.nextCursor }) : first;
  expect([first.total, deep.total]).toEqual([expected.customers, expected.customers]);
  expect((await trpc.contracts.list.query({ limit: 3 })).total).toBe(expected.contracts);
}

/** What the newest count of an account's stream holds (0 when none was made): how far compactions got. */
async function newestCount(accountId: string, stream: string) {
  const counts = server.service.db.collection("list_counts");
  const [newest] = await counts.find({ accountId, stream }).sort({ generation: -1 }).limit(1).toArray();
  return (newest?.count as number | undefined) ?? 0;
}

describe("list totals", () => {
  it("equal the items listed over random interleavings of creates, deletes and compactions", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(roundArb, { minLength: 3, maxLength: 6 }), async (rounds) => {
        const account = await newAccountWithCustomer(server);
        const repositories = createRepositories(server.service.db);
        const customerIds = [...account.customerIds];
        const liveContracts: string[] = [];
        let deletedContracts = 0;
        let named = 0;
        const createCustomer = async () => {
          named += 1;
          const { status, body } = await server.rest("POST", "/customers", {
            token: account.token,
            body: { name: `c-${named}` },
          });
          expect(status).toBe(201);
          customerIds.push(body.customer.id);
        };
        const createContract = async () => {
          const { status, body } = await server.rest("POST", "/contracts", {
            token: account.token,
            body: { startDate: "2024-03-01T00:00:00Z", customerId: customerIds[0], name: "k" },
          });
          expect(status).toBe(201);
          liveContracts.push(body.contract.id);
        };
        const deleteContract = async (contractId: string) => {
          const { status } = await server.rest("DELETE", `/contracts/${contractId}`, { token: account.token });
          // Of concurrent deletes of one contract exactly one is 200; the others find it gone.
          expect([200, 404]).toContain(status);
          if (status === 200) {
            deletedContracts += 1;
            liveContracts.splice(liveContracts.indexOf(contractId), 1);
          }
        };
        for (const round of rounds) {
          const doomed =
            liveContracts.length === 0 ? [] : round.deletes.map((at) => liveContracts[at % liveContracts.length]!);
          await Promise.all([
            ...Array.from({ length: round.customers }, createCustomer),
            ...Array.from({ length: round.contracts }, createContract),
            ...doomed.map(deleteContract),
            ...round.compactions.map((step) =>
              compactListTotals(repositories, account.accountId, new Date(), { settleMs: SETTLE_MS, step }),
            ),
          ]);
          await expectTotals(account.token, { customers: customerIds.length, contracts: liveContracts.length });
          await sleep(round.pauseMs);
        }
        // Once every document has settled, concurrent compactions count them all: the totals read counts alone.
        await sleep(SETTLE_MS);
        const compactAll = () =>
          compactListTotals(repositories, account.accountId, new Date(), { settleMs: SETTLE_MS, step: 3 });
        while ((await Promise.all([compactAll(), compactAll()])).some((moved) => moved > 0));
        await expectTotals(account.token, { customers: customerIds.length, contracts: liveContracts.length });
        expect(await newestCount(account.accountId, "customers")).toBe(customerIds.length);
        expect(await newestCount(account.accountId, "contracts")).toBe(liveContracts.length + deletedContracts);
        expect(await newestCount(account.accountId, "contractDeletions")).toBe(deletedContracts);
        // Older generations are deleted: the newest two remain.
        const kept = await server.service.db.collection("list_counts").countDocuments({ accountId: account.accountId });
        expect(kept).toBeLessThanOrEqual(2 * 3);
      }),
      { numRuns: 3 },
    );
  }, 600_000);

  it("count only documents older than LIST_COUNT_SETTLE_MS (a create takes its time before it stores)", async () => {
    const account = await newAccountWithCustomer(server);
    const repositories = createRepositories(server.service.db);
    await server.rest("POST", "/customers", { token: account.token, body: { name: "second" } });
    // Now: both customers are within the settle period, so nothing is counted.
    expect(await compactListTotals(repositories, account.accountId, new Date())).toBe(0);
    expect(await newestCount(account.accountId, "customers")).toBe(0);
    // As a tick after the settle period: both counted (the customers stream moved on, nothing else).
    const later = new Date(Date.now() + LIST_COUNT_SETTLE_MS + 1_000);
    expect(await compactListTotals(repositories, account.accountId, later)).toBe(1);
    expect(await newestCount(account.accountId, "customers")).toBe(2);
    expect((await server.rest("GET", "/customers?limit=1", { token: account.token })).body.total).toBe(2);
  });

  it("count each account's own items only", async () => {
    const [one, other] = await Promise.all([newAccountWithCustomer(server), newAccountWithCustomer(server)]);
    for (const name of ["a", "b"]) {
      await server.rest("POST", "/customers", { token: one.token, body: { name } });
    }
    await sleep(SETTLE_MS);
    const repositories = createRepositories(server.service.db);
    await compactListTotals(repositories, one.accountId, new Date(), { settleMs: SETTLE_MS });
    await compactListTotals(repositories, other.accountId, new Date(), { settleMs: SETTLE_MS });
    // 1 + 2 customers for `one`, 1 for `other`.
    expect((await server.rest("GET", "/customers?limit=1", { token: one.token })).body.total).toBe(3);
    expect((await server.rest("GET", "/customers?limit=1", { token: other.token })).body.total).toBe(1);
  });

  it("of invoices, unfiltered from counts, filtered by counting, agree with the pages", async () => {
    const account = await billingAccount(server);
    const other = await account.newCustomer({ name: "Other Co" });
    await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 10)] });
    await account.post(
      "/contracts",
      { customerId: other, name: "Plan", startDate: "2024-01-01T00:00:00Z", products: [committed(1, 10)] },
      201,
    );
    const repositories = createRepositories(server.service.db);
    const expectInvoiceTotals = async (all: number, ofOther: number) => {
      const walked = await walkRestPages(server, account.token, "/invoices", "invoices", 2);
      expect([walked.ids.length, ...new Set(walked.totals)]).toEqual([all, all]);
      const filtered = await walkRestPages(server, account.token, `/invoices?customerId=${other}`, "invoices", 1);
      expect([filtered.ids.length, ...new Set(filtered.totals)]).toEqual([ofOther, ofOther]);
    };
    // Two contracts billed monthly from January 1: January and February for each at March 1.
    await account.run("2024-03-01T00:00:00Z");
    await expectInvoiceTotals(4, 2);
    await sleep(SETTLE_MS);
    // One invoice counted, three after the count's watermark.
    await compactListTotals(repositories, account.accountId, new Date(), { settleMs: SETTLE_MS, step: 1 });
    // March and April for each at May 1: 4 + 4 = 8, 2 + 2 = 4 of the other customer.
    await account.run("2024-05-01T00:00:00Z");
    await expectInvoiceTotals(8, 4);
    await sleep(SETTLE_MS);
    // Concurrent compactions of one generation: one of them counts; repeated until nothing is left to count.
    const compact = () =>
      compactListTotals(repositories, account.accountId, new Date(), { settleMs: SETTLE_MS, step: 3 });
    while ((await Promise.all([compact(), compact(), compact()])).some((moved) => moved > 0)) {
      await expectInvoiceTotals(8, 4);
    }
    expect(await newestCount(account.accountId, "invoices")).toBe(8);
  }, 120_000);
});
