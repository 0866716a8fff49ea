import { describe, expect, it } from "vitest";
import { ConflictError, NotFoundError } from "../src/index.js";
import { keyRecordingFetch, newClient, rejectionOf, useTestServer } from "./helpers.js";

const ctx = useTestServer();

/** A FINALIZED invoice of 3 seats at 10 for January 2024 (30 USD), made by a billing run through the SDK. */
async function januaryInvoice(options = {}) {
  const setup = await newClient(ctx.server, options);
  const { client } = setup;
  const customer = await client.customers.create({ name: "Billed" });
  await client.contracts.create({
    customerId: customer.id,
    name: "Plan",
    startDate: "2024-01-01T00:00:00Z",
    products: [
      {
        displayName: "Seats",
        commitment: { units: 3, price: 10, scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 } },
      },
    ],
  });
  const run = await client.billing.run({ at: "2024-02-01T00:00:00Z" });
  return { ...setup, customer, invoice: await client.invoices.get(run.invoiceIds[0]!) };
}

describe("invoices.pay, payments and void", () => {
  it("pays 30 as 10 + 20, lists both in order; voiding a paid invoice is a ConflictError", async () => {
    const { client, invoice } = await januaryInvoice();
    const first = await client.invoices.pay(invoice.id, { amount: 10, transactionId: "sdk-1" });
    expect(first.invoice).toMatchObject({ billingStatus: "PartiallyPaid", amountPaid: 10, amountDue: 20 });
    const second = await client.invoices.pay(invoice.id, { amount: 20 });
    expect(second.invoice).toMatchObject({ billingStatus: "Paid", amountDue: 0 });
    expect(await client.invoices.payments(invoice.id)).toEqual([first.payment, second.payment]);
    // Nothing stored late for January: nothing adjusted it.
    expect(await client.invoices.adjustments(invoice.id)).toEqual([]);
    const refused = await rejectionOf(client.invoices.void(invoice.id));
    expect(refused).toBeInstanceOf(ConflictError);
    expect(await rejectionOf(client.invoices.pay(invoice.id, { amount: 1, transactionId: "sdk-1" }))).toBeInstanceOf(
      ConflictError,
    );
  });

  it("sends pay with the caller's Idempotency-Key: the same key and input record one payment", async () => {
    const recorder = keyRecordingFetch();
    const { client, invoice } = await januaryInvoice({ fetch: recorder.fetch });
    await client.invoices.pay(invoice.id, { amount: 5 }, { idempotencyKey: "pay-once" });
    // The same key and input: the first answer again, the payment recorded once.
    await client.invoices.pay(invoice.id, { amount: 5 }, { idempotencyKey: "pay-once" });
    expect(await client.invoices.payments(invoice.id)).toHaveLength(1);
    expect(recorder.keys).toContain("pay-once");
  });

  it("voids an unpaid invoice; another account's is a NotFoundError", async () => {
    const { client, invoice } = await januaryInvoice();
    const stranger = (await newClient(ctx.server)).client;
    expect(await rejectionOf(stranger.invoices.void(invoice.id))).toBeInstanceOf(NotFoundError);
    expect(await client.invoices.void(invoice.id, { reason: "duplicate" })).toMatchObject({
      status: "VOIDED",
      amountDue: 0,
    });
  });
});

describe("creditNotes", () => {
  it("creates an OFFSET note (30 − 4.5 = 25.5 due), gets it and lists it by invoice", async () => {
    const { client, invoice } = await januaryInvoice();
    const note = await client.creditNotes.create({
      invoiceId: invoice.id,
      amount: 4.5,
      reason: "PRODUCT_UNSATISFACTORY",
      refund: "OFFSET",
    });
    expect(note).toMatchObject({ number: "CN-000001", amount: 4.5, refund: "OFFSET" });
    expect(await client.creditNotes.get(note.id)).toEqual(note);
    expect((await client.creditNotes.list({ invoiceId: invoice.id })).creditNotes).toEqual([note]);
    expect(await client.invoices.get(invoice.id)).toMatchObject({ amountCredited: 4.5, amountDue: 25.5 });
    const all = [];
    for await (const item of client.creditNotes.listAll()) all.push(item);
    expect(all).toEqual([note]);
  });
});
