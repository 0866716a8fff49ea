import { describe, expect, it } from "vitest";
import { pdfLines } from "../../server/test/support/pdf-text.js";
import { AuthenticationError, NotFoundError } from "../src/index.js";
import { newClient, rejectionOf, unknownId, useTestServer } from "./helpers.js";

const ctx = useTestServer();

/** One invoice from a billing run: 3 seats at 33.33 for January 2024 = 99.99. */
async function billed() {
  const setup = await newClient(ctx.server);
  const customer = await setup.client.customers.create({ name: "Docs & Co" });
  await setup.client.contracts.create({
    customerId: customer.id,
    name: "Plan",
    startDate: "2024-01-01T00:00:00Z",
    endDate: "2024-02-01T00:00:00Z",
    products: [
      {
        displayName: "Seats",
        scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
        commitment: { units: 3, price: 33.33 },
      },
    ],
  });
  await setup.client.billing.run({ at: "2024-02-01T00:00:00Z" });
  const { invoices } = await setup.client.invoices.list();
  return { ...setup, invoice: invoices[0]! };
}

/** The invoice above, paid, then credited 12.34 as CREDITS. */
async function credited() {
  const { invoice, ...setup } = await billed();
  await setup.client.invoices.pay(invoice.id, { amount: 99.99 });
  const creditNote = await setup.client.creditNotes.create({
    invoiceId: invoice.id,
    amount: 12.34,
    reason: "ORDER_CHANGE",
    refund: "CREDITS",
  });
  return { ...setup, creditNote };
}

describe("invoices.pdf and invoices.html", () => {
  it("download the invoice's documents: PDF bytes and an HTML page with its number, lines and total", async () => {
    const { client, invoice } = await billed();
    const bytes = await client.invoices.pdf(invoice.id);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe("%PDF-");
    const lines = await pdfLines(bytes);
    // 3 × 33.33 = 99.99
    expect(lines).toEqual(expect.arrayContaining(["INV-000001", "Seats commitment 3 33.33 99.99", "Total 99.99"]));
    const html = await client.invoices.html(invoice.id);
    expect(html).toContain('<p class="number">INV-000001</p>');
    expect(html).toContain("Docs &amp; Co");
    expect(html).toContain('<tr class="emphasis"><td>Total</td><td>99.99</td></tr>');
  });

  it("answer typed errors: another account's invoice is NotFoundError, a bad token AuthenticationError", async () => {
    const { invoice } = await billed();
    const stranger = await newClient(ctx.server);
    expect(await rejectionOf(stranger.client.invoices.pdf(invoice.id))).toBeInstanceOf(NotFoundError);
    expect(await rejectionOf(stranger.client.invoices.html(unknownId()))).toBeInstanceOf(NotFoundError);
    const anonymous = await newClient(ctx.server, { token: "not-a-token" });
    expect(await rejectionOf(anonymous.client.invoices.pdf(invoice.id))).toBeInstanceOf(AuthenticationError);
  });
});

describe("creditNotes.pdf", () => {
  it("downloads the credit note's PDF bytes: its number, the invoice's number and the amount", async () => {
    const { client, creditNote } = await credited();
    const bytes = await client.creditNotes.pdf(creditNote.id);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe("%PDF-");
    const lines = await pdfLines(bytes);
    expect(lines).toEqual(
      expect.arrayContaining([
        "CN-000001",
        "Invoice INV-000001",
        "Credit on invoice INV-000001 12.34",
        "Total credited 12.34",
      ]),
    );
  });

  it("answers typed errors: another account's note is NotFoundError, a bad token AuthenticationError", async () => {
    const { creditNote } = await credited();
    const stranger = await newClient(ctx.server);
    expect(await rejectionOf(stranger.client.creditNotes.pdf(creditNote.id))).toBeInstanceOf(NotFoundError);
    expect(await rejectionOf(stranger.client.creditNotes.pdf(unknownId()))).toBeInstanceOf(NotFoundError);
    const anonymous = await newClient(ctx.server, { token: "not-a-token" });
    expect(await rejectionOf(anonymous.client.creditNotes.pdf(creditNote.id))).toBeInstanceOf(AuthenticationError);
  });
});
