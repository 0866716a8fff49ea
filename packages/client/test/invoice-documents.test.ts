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
