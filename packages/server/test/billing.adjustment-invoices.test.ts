import { describe, expect, it } from "vitest";
import { useTestServer } from "./support/harness.js";
import { testHooks } from "./support/hooks.js";
import { setLateUsage, tokens, tokensAccount } from "./support/late-usage.js";
import { runOnOwnClient } from "./support/own-client-run.js";

const control = testHooks();
const server = useTestServer({ hooks: control.hooks });

/** A fresh account with a GRADUATED tokens contract from March to June, under ADJUSTMENT_INVOICE (90 days). */
async function adjustedAccount() {
  const { account, contract } = await tokensAccount(server);
  expect((await setLateUsage(server, account, { policy: "ADJUSTMENT_INVOICE", windowDays: 90 })).status).toBe(200);
  return { account, contract };
}

const lateLines = (invoice: { lineItems: { kind: string }[] }) =>
  invoice.lineItems.filter((line) => line.kind === "LATE_USAGE");
const seqOf = (invoice: { number: string }) => Number(invoice.number.slice(-6));

describe("late usage (issue 45): ADJUSTMENT_INVOICE", () => {
  it("a separate invoice per original and late batch, numbered in the sequence, final at once, made once", async () => {
    const { account, contract } = await adjustedAccount();
    const url = "https://hooks.example.com/billing";
    await account.post("/webhook-endpoints", { url, eventTypes: ["invoice.created", "invoice.adjusted"] }, 201);

    await account.post("/events", { events: [tokens("m1", "2025-03-10T12:00:00Z", 800)] });
    await account.run("2025-04-01T00:00:00Z");
    const [march] = await account.invoices(contract.id);
    expect(march.amount).toBe(8); // 800 × 0.01 = 8.00

    // 500 late tokens of March 20; May 1's run on two instances at once, then once more: one adjustment invoice.
    await account.post("/events", { events: [tokens("late-1", "2025-03-20T12:00:00Z", 500)] });
    await Promise.all([
      account.run("2025-05-01T00:00:00Z"),
      runOnOwnClient(server, account.accountId, "2025-05-01T00:00:00Z"),
    ]);
    await account.run("2025-05-01T00:00:00Z");
    const [marchAgain, adjustment, april, ...more] = await account.invoices(contract.id);
    expect(more).toEqual([]);
    expect(marchAgain).toEqual(march); // an issued invoice never changes
    // March priced again at 1,300: 1,000 × 0.01 + 300 × 0.005 = 10.00 + 1.50 = 11.50; invoiced 8.00 → +3.50.
    expect(adjustment).toMatchObject({
      kind: "ADJUSTMENT",
      adjusts: march.id,
      status: "FINALIZED",
      billingCycle: march.billingCycle,
      amount: 3.5,
      finalizedAt: "2025-05-01T00:00:00.000Z",
    });
    expect(lateLines(adjustment)).toEqual([
      expect.objectContaining({
        name: `Late usage, ${march.number} (Mar 2025): +500 tokens`,
        adjusts: { invoiceId: march.id, number: march.number, product: "tokens", quantity: 500 },
        revenueBreakdown: expect.objectContaining({ subtotal: 3.5, total: 3.5 }),
      }),
    ]);
    expect(adjustment.lineItems).toHaveLength(1);
    // In the account's one sequence: March 1, the adjustment 2 (made first by May 1's run), April 3.
    expect([seqOf(adjustment), seqOf(april)]).toEqual([seqOf(march) + 1, seqOf(march) + 2]);
    // April's own invoice carries no LATE_USAGE line: the adjustment is apart.
    expect(april.kind).toBeUndefined();
    expect(lateLines(april)).toEqual([]);
    expect(april.amount).toBe(0); // April's own usage: none

    // Its document names the invoice it adjusts, and the line March's number.
    const html: string = (await server.rest("GET", `/invoices/${adjustment.id}/html`, { token: account.token })).body;
    expect(html).toContain(`Late usage, ${march.number} (Mar 2025): +500 tokens`);
    expect(html).toContain(`<tr><td>Adjusts invoice</td><td>${march.number}</td></tr>`);

    // The event explains itself by the adjustment invoice; March lists it among its adjustments.
    const query = "startTime=2025-03-01T00:00:00Z&endTime=2025-07-01T00:00:00Z&limit=100";
    const { events } = (await server.rest("GET", `/events?${query}`, { token: account.token })).body;
    const lateId = events.find((event: { ref: string }) => event.ref === "late-1").id;
    const explained = (await server.rest("GET", `/events/${lateId}`, { token: account.token })).body;
    expect(explained.attribution.meters).toEqual([
      { key: "tokens", counted: true, reason: "ADJUSTED", adjustedBy: adjustment.id },
    ]);
    const listed = await server.rest("GET", `/invoices/${march.id}/adjustments`, { token: account.token });
    expect(listed.body.adjustments).toEqual([
      expect.objectContaining({ kind: "LATE_USAGE", adjustedBy: adjustment.id, amount: 3.5, quantity: 500 }),
    ]);

    // A second late batch: a second, incremental adjustment invoice on June 1 (1,400 = 10.00 + 400 × 0.005 = 12.00;
    // charged 8.00 + 3.50 = 11.50 → +0.50 for +100).
    await account.post("/events", { events: [tokens("late-2", "2025-03-25T12:00:00Z", 100)] });
    await account.run("2025-06-01T00:00:00Z");
    const [, , , second, may, ...after] = await account.invoices(contract.id);
    expect(after).toEqual([]);
    expect(second).toMatchObject({ kind: "ADJUSTMENT", adjusts: march.id, amount: 0.5 });
    expect(lateLines(second)).toEqual([
      expect.objectContaining({ name: `Late usage, ${march.number} (Mar 2025): +100 tokens` }),
    ]);
    expect(lateLines(may)).toEqual([]);

    // Announced like any invoice: created once each; invoice.adjusted once per adjustment on March.
    const messages = await server.service.db
      .collection("webhookMessages")
      .find({ accountId: account.accountId })
      .toArray();
    const ofType = (type: string) => messages.filter((message) => message.type === type);
    const created = ofType("invoice.created").map((message) => JSON.parse(message.payload).data.id);
    expect(created.filter((id: string) => id === adjustment.id || id === second.id).sort()).toEqual(
      [adjustment.id, second.id].sort(),
    );
    const adjusted = ofType("invoice.adjusted").map((message) => JSON.parse(message.payload).data);
    expect(adjusted.map((data: { adjustedBy: string; amount: number }) => [data.adjustedBy, data.amount])).toEqual(
      expect.arrayContaining([
        [adjustment.id, 3.5],
        [second.id, 0.5],
      ]),
    );
    expect(adjusted).toHaveLength(2);
  });

  it("a run that stopped after the adjustment invoice, before its own: the next run adds no second one", async () => {
    const { account, contract } = await adjustedAccount();
    await account.post("/events", { events: [tokens("m1", "2025-03-10T12:00:00Z", 800)] });
    await account.run("2025-04-01T00:00:00Z"); // March: 8.00
    await account.post("/events", { events: [tokens("late-1", "2025-03-20T12:00:00Z", 500)] });
    // May 1's run stores the adjustment invoice (the contract's first insert), then fails to store April's.
    const paused = control.pauseOnce("invoices.insert", contract.id);
    const stopped = account.runOnce("2025-05-01T00:00:00Z");
    await paused.reached;
    control.fail("invoices.insert", contract.id, 1);
    paused.release();
    expect((await stopped).failures).toHaveLength(1);
    const [march, adjustment, ...none] = await account.invoices(contract.id);
    expect(none).toEqual([]);
    expect(adjustment).toMatchObject({ kind: "ADJUSTMENT", adjusts: march.id, status: "FINALIZED", amount: 3.5 });

    // The next run makes April's invoice (a failure is tried again an hour on, real time: made due now); March's
    // adjustment is counted, not made again (11.50 − 8.00 − 3.50 = 0).
    const failures = server.service.db.collection("billingFailures");
    await failures.updateMany({ accountId: account.accountId }, { $set: { retryAt: new Date(0) } });
    expect((await account.run("2025-05-01T00:00:00Z")).invoicesCreated).toBe(1);
    const [, adjustmentAgain, april, ...more] = await account.invoices(contract.id);
    expect(more).toEqual([]);
    expect(adjustmentAgain).toEqual(adjustment);
    expect(april).toMatchObject({ amount: 0 });
    expect(april.kind).toBeUndefined();
    expect(lateLines(april)).toEqual([]);
  });

  it("a backlog's cycles billed in one run make one adjustment invoice of the original", async () => {
    const { account, contract } = await adjustedAccount();
    await account.post("/events", { events: [tokens("m1", "2025-03-10T12:00:00Z", 800)] });
    await account.run("2025-04-01T00:00:00Z"); // March: 8.00
    await account.post("/events", { events: [tokens("late-1", "2025-03-20T12:00:00Z", 500)] });
    const { run } = await runOnOwnClient(server, account.accountId, "2025-06-01T00:00:00Z"); // April and May
    expect(run.invoicesCreated).toBe(2); // April's and May's (an adjustment invoice is counted apart)
    const invoices = await account.invoices(contract.id);
    const [march] = invoices;
    // March priced again at 1,300: 11.50 − 8.00 = +3.50, once; April and May carry nothing late.
    expect(invoices.filter(({ kind }) => kind === "ADJUSTMENT")).toEqual([
      expect.objectContaining({ adjusts: march.id, amount: 3.5 }),
    ]);
    expect(invoices.filter(({ kind }) => kind !== "ADJUSTMENT").flatMap(lateLines)).toEqual([]);
  });
});
