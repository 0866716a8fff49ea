import type { InvoiceDraft } from "@billing/shared";
import { describe, expect, it } from "vitest";
import { breakdown, insertInvoice } from "../../server/test/support/invoices.js";
import { ConflictError, NotFoundError } from "../src/index.js";
import { inSequence, newClient, PAGINATION, unknownId, useTestServer, walk } from "./helpers.js";

const ctx = useTestServer();

/** A valid draft for the cycle starting on the first of month `cycle` of 2024 (13 = January 2025, and so on). */
const draft = (customerId: string, contractId: string, cycle: number, total = 10): InvoiceDraft => ({
  customerId,
  contractId,
  currency: "USD",
  name: `Invoice ${cycle}`,
  billingCycle: {
    startTime: new Date(Date.UTC(2024, cycle - 1, 1)).toISOString(),
    endTime: new Date(Date.UTC(2024, cycle, 1)).toISOString(),
  },
  revenueBreakdown: breakdown(total),
  billingStatus: "None",
  dueDate: new Date(Date.UTC(2024, cycle, 15)).toISOString(),
  amount: total,
  lineItems: [{ name: "Seats", kind: "ONE_TIME", revenueBreakdown: breakdown(total), taxes: [] }],
  taxExempt: false,
  taxSummary: [],
});

/** Invoices enter the service only through the repository (the billing engine's way in). */
async function withInvoices(cycles: number) {
  const setup = await newClient(ctx.server);
  const { client, accountId } = setup;
  const customer = await client.customers.create({ name: "Billed" });
  const contract = await client.contracts.create({
    customerId: customer.id,
    name: "Plan",
    startDate: "2024-01-01T00:00:00Z",
  });
  const invoices = await inSequence(cycles, async (i) => {
    const { invoice } = await insertInvoice(ctx.server, accountId, draft(customer.id, contract.id, i + 1, i + 1));
    return invoice;
  });
  return { ...setup, customer, contract, invoices };
}

describe("invoices", () => {
  it("gets an invoice by id with every field, amounts exact", async () => {
    const { client, invoices, customer, contract, accountId } = await withInvoices(1);
    const invoice = await client.invoices.get(invoices[0]!.id);
    expect(invoice).toEqual(invoices[0]);
    expect(invoice).toMatchObject({
      customerId: customer.id,
      contractId: contract.id,
      accountId,
      amount: 1,
      billingCycle: { startTime: "2024-01-01T00:00:00.000Z", endTime: "2024-02-01T00:00:00.000Z" },
      lineItems: [{ invoiceId: invoice.id, name: "Seats", kind: "ONE_TIME" }],
    });
  });

  it("answers NotFoundError for an unknown invoice or another account's", async () => {
    const { invoices } = await withInvoices(1);
    const { client: stranger } = await newClient(ctx.server);
    await expect(stranger.invoices.get(invoices[0]!.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(stranger.invoices.get(unknownId())).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "Invoice not found",
    });
    expect((await stranger.invoices.list()).total).toBe(0);
  });

  it("lists by customer and by contract", async () => {
    const { client, accountId, invoices, customer, contract } = await withInvoices(2);
    const other = await client.customers.create({ name: "Other" });
    const otherContract = await client.contracts.create({
      customerId: other.id,
      name: "Other plan",
      startDate: "2024-01-01T00:00:00Z",
    });
    const { invoice: foreign } = await insertInvoice(ctx.server, accountId, draft(other.id, otherContract.id, 1));

    const all = await client.invoices.list();
    expect(all).toMatchObject({ total: 3, hasMore: false });
    expect(all.invoices.map((i) => i.id)).toEqual([...invoices.map((i) => i.id), foreign.id]);

    const ofCustomer = await client.invoices.list({ customerId: customer.id });
    expect(ofCustomer.total).toBe(2);
    expect(ofCustomer.invoices).toEqual(invoices);
    expect((await client.invoices.list({ contractId: otherContract.id })).invoices).toEqual([foreign]);
    expect((await client.invoices.list({ customerId: customer.id, contractId: otherContract.id })).total).toBe(0);
    expect(await client.invoices.listAll({ contractId: contract.id }).toArray()).toEqual(invoices);
  });

  it("finalizes a draft with the account's first number, then refuses to finalize it again", async () => {
    const { client, invoices } = await withInvoices(1);
    const finalized = await client.invoices.finalize(invoices[0]!.id);
    // 1.00 as drafted (its contract has no such cycle to re-price it from), nothing paid: all of it due.
    expect(finalized).toMatchObject({ id: invoices[0]!.id, status: "FINALIZED", number: "INV-000001", amountDue: 1 });
    expect(await client.invoices.get(finalized.id)).toEqual(finalized);
    expect((await client.invoices.list({ status: "FINALIZED" })).invoices).toEqual([finalized]);
    await expect(client.invoices.finalize(finalized.id)).rejects.toBeInstanceOf(ConflictError);
    await expect(client.invoices.finalize(unknownId())).rejects.toBeInstanceOf(NotFoundError);
  });

  it("walks every invoice once, in creation order, across pages", async () => {
    const { client, invoices, customer } = await withInvoices(PAGINATION.count);
    const ids = invoices.map((i) => i.id);

    const items = [];
    for await (const invoice of client.invoices.listAll({ limit: PAGINATION.limit })) items.push(invoice);
    expect(items).toEqual(invoices);

    const walked = await walk(
      client.invoices.listAll({ limit: PAGINATION.limit, customerId: customer.id }),
      (page) => page.invoices,
    );
    expect(walked).toEqual({ pageSizes: PAGINATION.pageSizes, ids });
    expect((await client.invoices.listAll({ limit: PAGINATION.limit }).toArray()).map((i) => i.id)).toEqual(ids);
  });
});
