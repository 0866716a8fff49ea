import type { InvoiceDraft } from "@billing/shared";
import { describe, expect, it } from "vitest";
import { useTestServer } from "./support/harness.js";
import { breakdown, invoiceDraft as draft, insertInvoice } from "./support/invoices.js";
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
