import type { InvoiceDraft } from "@billing/shared";
import { ObjectId } from "mongodb";
import { describe, expect, it } from "vitest";
import { lastOfEach } from "../src/db/last-of-each.js";
import { useTestServer } from "./support/harness.js";
import { breakdown, invoiceDraft as draft, insertInvoice, insertInvoices } from "./support/invoices.js";
import { newId } from "./support/server.js";

/** The invoices repository: what it refuses to store, and one invoice per contract cycle. */
const server = useTestServer();

const insert = (accountId: string, draft: InvoiceDraft) => insertInvoice(server, accountId, draft);

describe("drafts the repository refuses", () => {
  it.each<[string, Partial<InvoiceDraft>]>([
    ["more than 6 decimals", { amount: 0.0000001, revenueBreakdown: breakdown(0.0000001) }],
    ["a negative amount", { amount: -1, revenueBreakdown: breakdown(-1) }],
    ["amount other than revenueBreakdown.total", { amount: 4 }],
    [
      "a cycle that ends before it starts",
      { billingCycle: { startTime: "2024-02-01T00:00:00Z", endTime: "2024-01-01T00:00:00Z" } },
    ],
    ["a customerId that is no service id", { customerId: "cus_1" }],
  ])("%s, storing nothing", async (_, fields) => {
    const { accountId: own, token: ownToken } = await server.newAccount();
    await expect(insert(own, draft(fields))).rejects.toThrow();
    expect((await server.rest("GET", "/invoices", { token: ownToken })).body.total).toBe(0);
  });

  it("unknown fields, e.g. a caller-chosen id", async () => {
    const { accountId } = await server.newAccount();
    await expect(insert(accountId, { ...draft(), id: newId() } as InvoiceDraft)).rejects.toThrow(/id/);
  });
});

describe("inserting the same contract cycle twice", () => {
  it("keeps the first invoice and reports created: false", async () => {
    const { accountId, token } = await server.newAccount();
    const customerId = newId();
    const contractId = newId();
    const first = await insert(accountId, draft({ customerId, contractId }, 5));
    // The same instant written with another offset is the same cycle.
    const again = await insert(accountId, {
      ...draft({ customerId, contractId, name: "Rerun", amount: 99, revenueBreakdown: breakdown(99) }, 5),
      billingCycle: { startTime: "2024-05-01T02:00:00+02:00", endTime: "2024-06-01T00:00:00Z" },
    });
    expect(again).toEqual({ invoice: first.invoice, created: false, stored: first.stored });

    const list = await server.rest("GET", `/invoices?contractId=${contractId}`, { token });
    expect(list.body.total).toBe(1);
    expect(list.body.invoices).toEqual([first.invoice]);

    expect((await insert(accountId, draft({ customerId, contractId }, 6))).created).toBe(true);
    expect((await insert(accountId, draft({ customerId, contractId: newId() }, 5))).created).toBe(true);
    expect((await server.rest("GET", `/invoices?customerId=${customerId}`, { token })).body.total).toBe(3);
  });

  it("creates exactly one invoice when runs race", async () => {
    const { accountId, token } = await server.newAccount();
    const cycle = draft({ customerId: newId(), contractId: newId() }, 7);
    const results = await Promise.all(Array.from({ length: 8 }, () => insert(accountId, cycle)));
    expect(results.filter((result) => result.created)).toHaveLength(1);
    expect(new Set(results.map((result) => result.invoice.id)).size).toBe(1);
    expect((await server.rest("GET", "/invoices", { token })).body.total).toBe(1);
  });

  it("is once per account: another account's invoice of the same customer, contract, cycle is its own", async () => {
    const [first, second] = [await server.newAccount(), await server.newAccount()];
    const cycle = draft({ customerId: newId(), contractId: newId() }, 3);
    const original = await insert(first.accountId, cycle);
    const copy = await insert(second.accountId, cycle);
    expect(copy.created).toBe(true);
    expect(copy.invoice.id).not.toBe(original.invoice.id);
    expect((await server.rest("GET", "/invoices", { token: first.token })).body.invoices).toEqual([original.invoice]);
  });
});

describe("a billing batch's invoices inserted together", () => {
  const created = (outcomes: Awaited<ReturnType<typeof insertInvoices>>) =>
    outcomes.filter((outcome) => "created" in outcome && outcome.created).length;

  it("stores each once beside inserts racing it, a stored cycle reported, a refused draft alone refused", async () => {
    const { accountId, token } = await server.newAccount();
    const customerId = newId();
    const earlier = draft({ customerId, contractId: newId() }, 5);
    const first = await insertInvoice(server, accountId, earlier);
    const batch = [
      ...Array.from({ length: 5 }, () => draft({ customerId, contractId: newId() }, 5)),
      earlier,
      draft({ customerId, contractId: newId(), amount: -1, revenueBreakdown: breakdown(-1) }, 5),
    ];
    const [outcomes] = await Promise.all([
      insertInvoices(server, accountId, batch),
      ...Array.from({ length: 4 }, () => insertInvoice(server, accountId, draft({ customerId, contractId: newId() }))),
    ]);
    expect(created(outcomes)).toBe(5);
    expect(outcomes[5]).toEqual({ invoice: first.invoice, created: false, stored: first.stored });
    expect(outcomes[6]).toHaveProperty("error");
    // 1 stored before + 5 of the batch + 4 beside it, each listed once.
    const list = await server.rest("GET", `/invoices?customerId=${customerId}&limit=100`, { token });
    expect(list.body.total).toBe(10);
    expect(new Set(list.body.invoices.map(({ id }: { id: string }) => id)).size).toBe(10);
  });

  it("takes the places after the last when its guess is stale: every invoice stored, after those before", async () => {
    const { accountId, token } = await server.newAccount();
    const customerId = newId();
    const before = [await insertInvoice(server, accountId, draft({ customerId, contractId: newId() }))];
    before.push(await insertInvoice(server, accountId, draft({ customerId, contractId: newId() })));
    const stale = lastOfEach();
    stale.remember(accountId, 0);
    const batch = Array.from({ length: 3 }, () => draft({ customerId, contractId: newId() }));
    const outcomes = await insertInvoices(server, accountId, batch, stale);
    expect(created(outcomes)).toBe(3);
    const list = await server.rest("GET", `/invoices?customerId=${customerId}&limit=100`, { token });
    const ids = list.body.invoices.map(({ id }: { id: string }) => id);
    // Listed in the order stored: the two before first, then the batch's three.
    expect(ids.slice(0, 2)).toEqual(before.map(({ invoice }) => invoice.id));
    expect(new Set(ids.slice(2))).toEqual(
      new Set(outcomes.map((outcome) => ("invoice" in outcome ? outcome.invoice.id : ""))),
    );
  });
});

describe("a database whose invoices took their places before places were claimed", () => {
  it("places new invoices after its stored ones, makes the sequence's unique index again without unique", async () => {
    const invoices = server.service.db.collection("invoices");
    const { accountId, token } = await server.newAccount();
    const customerId = newId();
    const stored = await insertInvoice(server, accountId, draft({ customerId, contractId: newId() }));
    // As an earlier version left it: the invoice at place 41 of its account, no claim of that place.
    await invoices.updateOne({ _id: new ObjectId(stored.invoice.id) }, { $set: { seq: 41 } });
    await server.service.db.collection("invoicePlaces").deleteMany({ accountId });
    await invoices.dropIndex("accountId_1_seq_1");
    await invoices.createIndex({ accountId: 1, seq: 1 }, { unique: true });

    await server.service.repositories.invoices.ensureIndexes();
    const index = (await invoices.listIndexes().toArray()).find(({ name }) => name === "accountId_1_seq_1");
    expect(index?.unique).toBeUndefined();

    // Given by a process started after the upgrade: it has given no place yet, so its first claim reads the last.
    const [added] = await insertInvoices(server, accountId, [draft({ customerId, contractId: newId() })], lastOfEach());
    if (!added || "error" in added) throw new Error("the invoice was not stored");
    const list = await server.rest("GET", `/invoices?customerId=${customerId}`, { token });
    expect(list.body.invoices.map(({ id }: { id: string }) => id)).toEqual([stored.invoice.id, added.invoice.id]);
    const place = await server.service.db.collection("invoicePlaces").findOne({ accountId });
    expect(place?.seq).toBe(42);
  });
});
