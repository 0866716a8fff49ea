import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { billingAccount, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/** Seats (docs/decisions.md, "Seats"): PER_SEAT prices, prorated by days; every amount worked out by hand. */
const server = useTestServer();

const seatProduct = (seats: number, extra: Record<string, unknown> = {}) => ({
  displayName: "Seats",
  scheduling: monthly(1),
  pricing: { type: "PER_SEAT", price: 10 },
  seats,
  ...extra,
});

describe("seats", () => {
  it("25 seats at 10.00, +5 from Apr 11, −10 from Apr 21: each count billed for its days", async () => {
    const account = await billingAccount(server);
    const { endpoint } = await account.post("/webhook-endpoints", { url: "https://hooks.example.com/seats" }, 201);
    const contract = await account.contract({ startDate: "2024-04-01T00:00:00Z", products: [seatProduct(25)] });
    const change = (quantity: number, effectiveFrom: string, key: string) =>
      server.rest("POST", `/contracts/${contract.id}/seats`, {
        token: account.token,
        headers: { "idempotency-key": key },
        body: { product: "Seats", quantity, effectiveFrom },
      });
    const first = await change(30, "2024-04-11T00:00:00Z", "seats-1");
    expect(first.status).toBe(200);
    // Keyed: the same request again answers the first answer, and records nothing more.
    expect((await change(30, "2024-04-11T00:00:00Z", "seats-1")).body).toEqual(first.body);
    expect((await change(20, "2024-04-21T00:00:00Z", "seats-2")).status).toBe(200);
    const schedule = (await server.rest("GET", `/contracts/${contract.id}/seats`, { token: account.token })).body;
    expect(schedule.seats.map(({ quantity, effectiveFrom }: any) => [quantity, effectiveFrom])).toEqual([
      [25, "2024-04-01T00:00:00.000Z"],
      [30, "2024-04-11T00:00:00.000Z"],
      [20, "2024-04-21T00:00:00.000Z"],
    ]);
    const history = (await server.rest("GET", `/contracts/${contract.id}/history`, { token: account.token })).body;
    expect(history.history.filter((entry: any) => entry.kind === "seats").map((entry: any) => entry.seats)).toEqual([
      { product: "Seats", quantity: 30, effectiveFrom: "2024-04-11T00:00:00.000Z" },
      { product: "Seats", quantity: 20, effectiveFrom: "2024-04-21T00:00:00.000Z" },
    ]);
    // Each change is announced (deliveries stay pending: no worker runs here); the keyed replay announced nothing.
    const deliveries = (
      await server.rest("GET", `/webhook-endpoints/${endpoint.id}/deliveries?limit=100`, { token: account.token })
    ).body.deliveries;
    expect(deliveries.filter((delivery: any) => delivery.eventType === "contract.seats_changed")).toHaveLength(2);
    await account.run("2024-05-01T00:00:00Z");
    const [april] = await account.invoices(contract.id);
    // 25 × 10 × 10/30 + 30 × 10 × 10/30 + 20 × 10 × 10/30 = 83.333… + 100 + 66.666… = 250.00 (rounded once).
    // Shown quantity: seat-days 250 + 300 + 200 = 750 over 30 days = 25 seats on average.
    expect(april.lineItems).toMatchObject([
      { name: "Seats", kind: "SEATS", quantity: 25, unitPrice: 10, revenueBreakdown: { subtotal: 250 } },
    ]);
    expect(april.amount).toBe(250);
  });

  it("a prepaid cycle already issued: the seats added are billed on the next invoice", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-04-01T00:00:00Z",
      products: [seatProduct(25, { paymentTerm: "Prepayment" })],
    });
    await account.run("2024-04-01T00:00:00Z");
    // April, in advance: 25 × 10.00 = 250.00.
    expect((await account.invoices(contract.id)).map((invoice: any) => invoice.amount)).toEqual([250]);
    await account.post(`/contracts/${contract.id}/seats`, {
      product: "Seats",
      quantity: 28,
      effectiveFrom: "2024-04-11T00:00:00Z",
    });
    await account.run("2024-05-01T00:00:00Z");
    const [april, may] = await account.invoices(contract.id);
    // April stands at 250.00. May: 28 × 10.00 = 280.00, and +3 seats from Apr 11 to May 1 (20 of 30 days):
    // 3 × 10.00 × 20/30 = 20.00; 300.00 in all.
    expect(april.amount).toBe(250);
    expect(may.lineItems.map((line: any) => [line.name, line.kind, line.revenueBreakdown.subtotal])).toEqual([
      ["Seats", "SEATS", 280],
      ["+3 seats from Apr 11", "SEATS", 20],
    ]);
    expect(may.amount).toBe(300);
    // May is issued too: a change in April would need an invoice made already (the May one) to adjust: 409.
    const tooLate = await server.rest("POST", `/contracts/${contract.id}/seats`, {
      token: account.token,
      body: { product: "Seats", quantity: 30, effectiveFrom: "2024-04-20T00:00:00Z" },
    });
    expectError(tooLate, 409, "CONFLICT");
  });

  it("a prepaid cycle already issued: seats added and removed adjust the next invoice, refunds too", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-04-01T00:00:00Z",
      products: [seatProduct(25, { paymentTerm: "Prepayment" })],
    });
    await account.run("2024-04-01T00:00:00Z");
    const seats = (quantity: number, effectiveFrom: string) =>
      account.post(`/contracts/${contract.id}/seats`, { product: "Seats", quantity, effectiveFrom });
    await seats(30, "2024-04-11T00:00:00Z");
    await seats(20, "2024-04-21T00:00:00Z");
    const schedule = (await server.rest("GET", `/contracts/${contract.id}/seats`, { token: account.token })).body;
    expect(schedule.seats.map((entry: any) => entry.adjustedOnNextInvoice)).toEqual([false, true, true]);
    await account.run("2024-05-01T00:00:00Z");
    const [april, may] = await account.invoices(contract.id);
    // April stands at 25 × 10.00 = 250.00. May: 20 × 10.00 = 200.00; +5 seats from Apr 11 (20 of 30 days):
    // 5 × 10 × 20/30 = 33.333… → 33.33; −10 seats from Apr 21 (10 of 30 days): −10 × 10 × 10/30 = −33.333… → −33.33.
    // 200.00 + 33.33 − 33.33 = 200.00. By hand, April's seat-days: 25 × 10 + 30 × 10 + 20 × 10 = 750 → 250.00, as
    // invoiced: the two adjustments cancel out.
    expect(april.amount).toBe(250);
    expect(
      may.lineItems.map((line: any) => [
        line.name,
        line.quantity,
        line.revenueBreakdown.subtotal,
        line.revenueBreakdown.total,
      ]),
    ).toEqual([
      ["Seats", 20, 200, 200],
      ["+5 seats from Apr 11", 5, 33.33, 33.33],
      ["\u221210 seats from Apr 21", 10, -33.33, -33.33],
    ]);
    expect(may.revenueBreakdown).toMatchObject({ subtotal: 200, discount: 0, tax: 0, total: 200 });
    expect(may.amount).toBe(200);
  });

  it("a refund takes off at most what the product's lines charge: down to 0 seats, the invoice is 0.00", async () => {
    const account = await billingAccount(server);
    await account.post("/tax-rates", { code: "VAT20", name: "VAT 20 %", rate: 20, inclusive: false }, 201);
    const contract = await account.contract({
      startDate: "2024-04-01T00:00:00Z",
      products: [seatProduct(10, { paymentTerm: "Prepayment" })],
      taxRateCodes: ["VAT20"],
    });
    await account.run("2024-04-01T00:00:00Z");
    await account.post(`/contracts/${contract.id}/seats`, {
      product: "Seats",
      quantity: 1,
      effectiveFrom: "2024-04-16T00:00:00Z",
    });
    await account.run("2024-05-01T00:00:00Z");
    const [, may] = await account.invoices(contract.id);
    // May: 1 × 10.00 = 10.00; −9 seats from Apr 16 (15 of 30 days): −9 × 10 × 15/30 = −45.00, of which only 10.00
    // can be taken off May's invoice (the product's lines never go below 0): −10.00. Tax 20 %: 2.00 − 2.00 = 0.
    expect(
      may.lineItems.map((line: any) => [line.name, line.revenueBreakdown.subtotal, line.revenueBreakdown.tax]),
    ).toEqual([
      ["Seats", 10, 2],
      ["\u22129 seats from Apr 16", -10, -2],
    ]);
    expect(may.revenueBreakdown).toMatchObject({ subtotal: 0, tax: 0, total: 0 });
    // The rest, 45.00 − 10.00 = 35.00, and the tax April's seat line added on it (35 × 20.00/100.00 = 7.00), is
    // given back on April's invoice: one ORDER_CHANGE credit note of 42.00, taken off what it asks (nothing was paid):
    // 120.00 − 42.00 = 78.00. So April and May ask 78.00 + 0.00 = 10 seats × 15 days + 1 seat × 15 days (55.00) and
    // May's seat (10.00), with 20 % tax: 65.00 × 1.2 = 78.00.
    const notesOf = async (invoiceId: string) =>
      (await server.rest("GET", `/credit-notes?invoiceId=${invoiceId}`, { token: account.token })).body.creditNotes;
    const [april] = await account.invoices(contract.id);
    expect((await notesOf(april.id)).map(({ amount, reason, refund }: any) => [amount, reason, refund])).toEqual([
      [42, "ORDER_CHANGE", "OFFSET"],
    ]);
    expect(april.amountDue).toBe(78);
    // Once: a run again (as of a later moment) gives nothing more back.
    await account.run("2024-05-02T00:00:00Z");
    expect(await notesOf(april.id)).toHaveLength(1);
  });

  it("only its own invoices decide: another product's prepaid invoice leaves an arrears cycle open", async () => {
    const account = await billingAccount(server);
    const platform = { displayName: "Platform", scheduling: monthly(1), pricing: { type: "FLAT", price: 100 } };
    const contract = await account.contract({
      startDate: "2024-04-01T00:00:00Z",
      products: [{ ...platform, paymentTerm: "Prepayment" }, seatProduct(10)],
    });
    // April's prepaid Platform invoice is made; the seats' April (in arrears) is not.
    await account.run("2024-04-01T00:00:00Z");
    await account.post(`/contracts/${contract.id}/seats`, {
      product: "Seats",
      quantity: 16,
      effectiveFrom: "2024-04-16T00:00:00Z",
    });
    await account.run("2024-05-01T00:00:00Z");
    const invoices = await account.invoices(contract.id);
    const seats = invoices.flatMap((invoice: any) => invoice.lineItems).filter((line: any) => line.kind === "SEATS");
    // 10 × 10.00 × 15/30 + 16 × 10.00 × 15/30 = 50.00 + 80.00 = 130.00, on April's arrears invoice.
    expect(seats.map((line: any) => line.revenueBreakdown.subtotal)).toEqual([130]);
  });

  it("refuses what cannot be billed: no PER_SEAT product, an invoiced arrears day, no seats", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ startDate: "2024-04-01T00:00:00Z", products: [seatProduct(5)] });
    const post = (body: unknown) =>
      server.rest("POST", `/contracts/${contract.id}/seats`, { token: account.token, body });
    const unknownProduct = await post({ product: "Nope", quantity: 3, effectiveFrom: "2024-04-05T00:00:00Z" });
    expectError(unknownProduct, 400, "BAD_REQUEST");
    expect(unknownProduct.body.issues).toEqual([
      { path: "product", message: "must name a PER_SEAT product of the contract" },
    ]);
    expectError(
      await post({ product: "Seats", quantity: -1, effectiveFrom: "2024-04-05T00:00:00Z" }),
      400,
      "BAD_REQUEST",
    );
    await account.run("2024-05-01T00:00:00Z");
    expectError(await post({ product: "Seats", quantity: 3, effectiveFrom: "2024-04-05T00:00:00Z" }), 409, "CONFLICT");
    const noSeats = await server.rest("POST", "/contracts", {
      token: account.token,
      body: {
        customerId: account.customerId,
        name: "x",
        startDate: "2024-04-01T00:00:00Z",
        products: [{ displayName: "A", pricing: { type: "PER_SEAT", price: 1 } }],
      },
    });
    expectError(noSeats, 400, "BAD_REQUEST");
    expect(noSeats.body.issues).toEqual([{ path: "products.0.seats", message: "required by PER_SEAT pricing" }]);
  });
});
