import { describe, expect, it } from "vitest";
import { type BillingAccount, billingAccount } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { setLateUsage, tokens, tokensAccount } from "./support/late-usage.js";
import { runOnOwnClient } from "./support/own-client-run.js";
import { ADMIN_TOKEN } from "./support/server.js";

const server = useTestServer();

/** The meters' verdicts on the account's event `ref` (GET /events/{eventId}). */
async function explain(account: BillingAccount, ref: string) {
  const query = "startTime=2025-03-01T00:00:00Z&endTime=2025-07-01T00:00:00Z&limit=100";
  const { events } = (await server.rest("GET", `/events?${query}`, { token: account.token })).body;
  const id = events.find((event: { ref: string }) => event.ref === ref).id;
  return (await server.rest("GET", `/events/${id}`, { token: account.token })).body.attribution.meters;
}

const lateLines = (invoice: { lineItems: { kind: string }[] }) =>
  invoice.lineItems.filter((line) => line.kind === "LATE_USAGE");

describe("late usage (issue 45): NEXT_INVOICE", () => {
  it("the next invoice carries the whole March cycle priced again minus what March charged, once", async () => {
    const { account, contract } = await tokensAccount(server);
    const settings = await server.rest("GET", `/admin/accounts/${account.accountId}`, { token: ADMIN_TOKEN });
    expect(settings.body.account?.lateUsage ?? settings.body.lateUsage).toEqual({
      policy: "NEXT_INVOICE",
      windowDays: 35,
    });

    await account.post("/events", { events: [tokens("m1", "2025-03-10T12:00:00Z", 800)] });
    await account.run("2025-04-01T00:00:00Z");
    const [march] = await account.invoices(contract.id);
    expect(march.amount).toBe(8); // 800 × 0.01 = 8.00
    expect(march.status).toBe("FINALIZED");

    // 500 late tokens of March 20, stored after March's invoice; sent twice (same refs): stored once.
    const late = { events: [tokens("late-1", "2025-03-20T12:00:00Z", 500)] };
    await account.post("/events", late);
    await account.post("/events", late);
    await account.run("2025-05-01T00:00:00Z");
    await account.run("2025-05-01T00:00:00Z"); // a second run at the same moment adjusts nothing again
    const [marchAgain, april] = await account.invoices(contract.id);
    expect(marchAgain).toEqual(march); // an issued invoice never changes
    // March priced again at 1,300: 1,000 × 0.01 + 300 × 0.005 = 10.00 + 1.50 = 11.50; invoiced 8.00 → +3.50.
    expect(lateLines(april)).toEqual([
      expect.objectContaining({
        name: `Late usage, ${march.number} (Mar 2025): +500 tokens`,
        quantity: 500,
        adjusts: { invoiceId: march.id, number: march.number, product: "tokens", quantity: 500 },
        revenueBreakdown: expect.objectContaining({ subtotal: 3.5, total: 3.5 }),
      }),
    ]);
    expect(april.amount).toBe(3.5); // April's own usage: none
    expect(await explain(account, "late-1")).toEqual([
      { key: "tokens", counted: true, reason: "ADJUSTED", adjustedBy: april.id },
    ]);
    expect(await explain(account, "m1")).toEqual([{ key: "tokens", counted: true }]);
    // April's document shows the line with March's number, and what it is.
    const html: string = (await server.rest("GET", `/invoices/${april.id}/html`, { token: account.token })).body;
    expect(html).toContain(`Late usage, ${march.number} (Mar 2025): +500 tokens`);
    expect(html).toContain("its whole cycle priced again");

    // A second late batch makes a second, incremental line (the window widened so March is still in it in June).
    expect((await setLateUsage(server, account, { policy: "NEXT_INVOICE", windowDays: 90 })).status).toBe(200);
    await account.post("/events", { events: [tokens("late-2", "2025-03-25T12:00:00Z", 100)] });
    await account.run("2025-06-01T00:00:00Z");
    const [, aprilAgain, may] = await account.invoices(contract.id);
    expect(aprilAgain).toEqual(april);
    // 1,400: 10.00 + 400 × 0.005 = 12.00; charged 8.00 + 3.50 = 11.50 → +0.50 for +100.
    expect(lateLines(may)).toEqual([
      expect.objectContaining({
        name: `Late usage, ${march.number} (Mar 2025): +100 tokens`,
        revenueBreakdown: expect.objectContaining({ total: 0.5 }),
      }),
    ]);
  });

  it("a backlog's cycles billed in one run carry the late usage once: the first's, and the next sees it", async () => {
    const { account, contract } = await tokensAccount(server);
    expect((await setLateUsage(server, account, { policy: "NEXT_INVOICE", windowDays: 90 })).status).toBe(200);
    await account.post("/events", { events: [tokens("m1", "2025-03-10T12:00:00Z", 800)] });
    await account.run("2025-04-01T00:00:00Z"); // March: 800 × 0.01 = 8.00
    await account.post("/events", { events: [tokens("late-1", "2025-03-20T12:00:00Z", 500)] });
    // April and May in one run, one batch: April's look takes what the batch read; May's reads its own, April's
    // line (made by this run) included.
    const { run } = await runOnOwnClient(server, account.accountId, "2025-06-01T00:00:00Z");
    expect(run.invoicesCreated).toBe(2);
    const [march, april, may] = await account.invoices(contract.id);
    // March priced again at 1,300: 10.00 + 300 × 0.005 = 11.50; invoiced 8.00 → +3.50, on April only.
    expect(lateLines(april)).toEqual([
      expect.objectContaining({
        name: `Late usage, ${march.number} (Mar 2025): +500 tokens`,
        revenueBreakdown: expect.objectContaining({ total: 3.5 }),
      }),
    ]);
    expect(lateLines(may)).toEqual([]);
    expect([april.amount, may.amount]).toEqual([3.5, 0]);
  });

  it("a backlog's cycles billed in one run correct a lowered cycle once: one credit note", async () => {
    const { account, contract } = await tokensAccount(server);
    expect((await setLateUsage(server, account, { policy: "NEXT_INVOICE", windowDays: 90 })).status).toBe(200);
    await account.post("/events", { events: [tokens("m1", "2025-03-10T12:00:00Z", 800)] });
    await account.run("2025-04-01T00:00:00Z"); // March: 800 × 0.01 = 8.00
    // A measurement sets Mar 10 to 500: March is now 5.00, 3.00 less than invoiced.
    expect((await account.measure("tokens", "2025-03-10", 500)).measurement).toBeDefined();
    const { run } = await runOnOwnClient(server, account.accountId, "2025-06-01T00:00:00Z"); // April and May
    expect(run.invoicesCreated).toBe(2);
    const [march, april, may] = await account.invoices(contract.id);
    expect([lateLines(april), lateLines(may)]).toEqual([[], []]);
    expect(await creditNotesOf(account, march.id)).toEqual([
      expect.objectContaining({
        amount: 3,
        reason: "USAGE_CORRECTION",
        adjusts: { product: "tokens", quantity: -300, foundBy: april.id },
      }),
    ]);
    expect((await account.invoices(contract.id))[0].amountDue).toBe(5); // 8.00 − 3.00
  });

  it("IGNORE bills late usage nowhere; a window passed adjusts nothing", async () => {
    const { account, contract } = await tokensAccount(server);
    await account.post("/events", { events: [tokens("m1", "2025-03-10T12:00:00Z", 800)] });
    await account.run("2025-04-01T00:00:00Z");
    expect((await setLateUsage(server, account, { policy: "IGNORE", windowDays: 35 })).status).toBe(200);
    await account.post("/events", { events: [tokens("late-1", "2025-03-20T12:00:00Z", 500)] });
    await account.run("2025-05-01T00:00:00Z");
    const [, april] = await account.invoices(contract.id);
    expect(lateLines(april)).toEqual([]);
    expect(await explain(account, "late-1")).toEqual([{ key: "tokens", counted: false, reason: "AFTER_INVOICE" }]);

    // NEXT_INVOICE again, but March (finalized Apr 1) is 61 days before June 1's run: out of a 35-day window.
    expect((await setLateUsage(server, account, null)).status).toBe(200);
    await account.run("2025-06-01T00:00:00Z");
    const [, , may] = await account.invoices(contract.id);
    expect(lateLines(may)).toEqual([]);
    // May's invoice (finalized Jun 1, 61 days after March's) was made past the window: no run adjusts March now.
    expect(await explain(account, "late-1")).toEqual([{ key: "tokens", counted: false, reason: "AFTER_WINDOW" }]);
    // A policy that is none of the three: refused, naming the field, rather than taken and ignored.
    const refused = await setLateUsage(server, account, { policy: "LATER", windowDays: 35 });
    expect(refused.status).toBe(400);
    expect(refused.body.issues?.[0]?.path).toContain("lateUsage");
  });
});

const creditNotesOf = async (account: BillingAccount, invoiceId: string) =>
  (await server.rest("GET", `/credit-notes?invoiceId=${invoiceId}&limit=100`, { token: account.token })).body
    .creditNotes as { amount: number; reason: string; refund: string; adjusts?: unknown }[];

describe("late usage (issue 45): a lowered cycle is credited on its original", () => {
  it("Mar 10 lowered by 300 after the +3.50 adjustment: a USAGE_CORRECTION credit note of 1.50, once", async () => {
    const { account, contract } = await tokensAccount(server);
    expect((await setLateUsage(server, account, { policy: "NEXT_INVOICE", windowDays: 90 })).status).toBe(200);
    const url = "https://hooks.example.com/billing";
    await account.post("/webhook-endpoints", { url, eventTypes: ["invoice.adjusted"] }, 201);
    await account.post("/events", { events: [tokens("m1", "2025-03-10T12:00:00Z", 800)] });
    await account.run("2025-04-01T00:00:00Z");
    await account.post("/events", { events: [tokens("late-1", "2025-03-20T12:00:00Z", 500)] });
    await account.run("2025-05-01T00:00:00Z");
    const [march, april] = await account.invoices(contract.id);
    expect(lateLines(april).map((line: any) => line.revenueBreakdown.total)).toEqual([3.5]); // 11.50 − 8.00

    // A measurement sets Mar 10 to 500 (its events said 800): March is now 500 + 500 = 1,000 = 10.00, and it and
    // April's line charged 8.00 + 3.50 = 11.50 → −1.50 for −300 tokens. Two runs at once, then one more: one note.
    expect((await account.measure("tokens", "2025-03-10", 500)).measurement).toBeDefined();
    await Promise.all([account.run("2025-06-01T00:00:00Z"), account.run("2025-06-01T00:00:00Z")]);
    await account.run("2025-06-01T00:00:00Z");
    const [marchAfter, , may] = await account.invoices(contract.id);
    expect(lateLines(may)).toEqual([]);
    expect(await creditNotesOf(account, march.id)).toEqual([
      expect.objectContaining({
        amount: 1.5,
        reason: "USAGE_CORRECTION",
        refund: "OFFSET", // March's 8.00 is unpaid: taken off what it asks
        adjusts: { product: "tokens", quantity: -300, foundBy: may.id },
      }),
    ]);
    expect(marchAfter.amountDue).toBe(6.5); // 8.00 − 1.50
    expect(marchAfter.lineItems).toEqual(march.lineItems); // an issued invoice's lines never change

    // Nothing changed since: July's invoice neither bills nor credits March again (10.00 = 8.00 + 3.50 − 1.50).
    await account.run("2025-07-01T00:00:00Z");
    const [, , , june] = await account.invoices(contract.id);
    expect(lateLines(june)).toEqual([]);
    expect(await creditNotesOf(account, march.id)).toHaveLength(1);

    // What adjusted March, oldest first: +3.50 on April's invoice, −1.50 by the credit note; each announced once.
    const [note] = await creditNotesOf(account, march.id);
    const { adjustments } = (await server.rest("GET", `/invoices/${march.id}/adjustments`, { token: account.token }))
      .body;
    const line = { invoiceId: march.id, kind: "LATE_USAGE", adjustedBy: april.id, number: april.number };
    const correction = { invoiceId: march.id, kind: "USAGE_CORRECTION", adjustedBy: (note as any).id };
    expect(adjustments).toEqual([
      expect.objectContaining({ ...line, id: `${april.id}/tokens`, quantity: 500, amount: 3.5, currency: "USD" }),
      expect.objectContaining({ ...correction, product: "tokens", quantity: -300, amount: -1.5 }),
    ]);
    expect((await account.trpc().invoicePayments.adjustments.query({ invoiceId: march.id })).adjustments).toEqual(
      adjustments,
    );
    const messages = await server.service.db
      .collection("webhookMessages")
      .find({ accountId: account.accountId, type: "invoice.adjusted" })
      .toArray();
    const announced = messages.map((message) => JSON.parse(message.payload).data);
    expect(announced.sort((a, b) => a.amount - b.amount)).toEqual([adjustments[1], adjustments[0]]);
    // Another account's token sees no such invoice.
    const other = await billingAccount(server, { name: "Other" });
    const foreign = await server.rest("GET", `/invoices/${march.id}/adjustments`, { token: other.token });
    expect(foreign.status).toBe(404);
  });
});

describe("late usage (issue 45): what a run reads to look for it", () => {
  /** A billing run at `at` on a client of its own whose commands are counted (the service's database). */
  async function countedRun(account: BillingAccount, at: string) {
    const { commands } = await runOnOwnClient(server, account.accountId, at);
    const finds = (collection: string) =>
      commands.filter(({ commandName, command }) => commandName === "find" && command.find === collection);
    return {
      /** Late usage's light read of when usage was stored (rollups projected to `storedAt`): a look's of its own. */
      storedAtReads: finds("usage_rollups").filter(({ command }) => command.projection?.storedAt).length,
      /**
       * Reads of the rollups themselves, 2 a read (a read, then its compactions read again): the claimed batch's
       * cycles' usage, then the usage of the invoices its late-usage looks may price again; a look of its own more.
       */
      rollupReads: finds("usage_rollups").filter(({ command }) => !command.projection?.storedAt).length,
      /** The contracts' finalized invoices in the window (the originals): one read for the claimed batch. */
      originalReads: finds("invoices").filter(({ command }) => command.filter?.finalizedAt).length,
    };
  }

  it("a batch reads its late-usage looks together, the same reads whether earlier usage came late or not", async () => {
    const { account, contract } = await tokensAccount(server);
    // 90 days: on July 1 March, April and May are all in the window, and are looked at in one read.
    expect((await setLateUsage(server, account, { policy: "NEXT_INVOICE", windowDays: 90 })).status).toBe(200);
    await account.post("/events", { events: [tokens("a1", "2025-04-10T12:00:00Z", 800)] });
    await account.run("2025-04-01T00:00:00Z");
    await account.run("2025-05-01T00:00:00Z"); // April: 800 = 8.00
    // As in production, April's usage was stored well before its invoice (a test stores both within a second).
    const rollups = server.service.db.collection("usage_rollups");
    await rollups.updateMany({ accountId: account.accountId }, { $set: { storedAt: new Date(Date.now() - 3600_000) } });

    // June 1 (May's invoice): nothing stored for April since it was invoiced, so no late line; the batch read
    // March's and April's invoices and their usage with May's, no look read its own.
    const batchReads = { originalReads: 1, storedAtReads: 0, rollupReads: 4 };
    expect(await countedRun(account, "2025-06-01T00:00:00Z")).toEqual(batchReads);
    // 500 late tokens of April 20: July 1 (June's invoice) prices April again: +3.50 (1,300 = 10.00 + 1.50 − 8.00),
    // from the same reads (June's usage, then March's to May's).
    await account.post("/events", { events: [tokens("a2", "2025-04-20T12:00:00Z", 500)] });
    expect(await countedRun(account, "2025-07-01T00:00:00Z")).toEqual(batchReads);
    const [, , may] = await account.invoices(contract.id);
    expect(lateLines(may)).toEqual([]);
    const [, april, , june] = await account.invoices(contract.id); // March (0 tokens), April, May, June
    expect(lateLines(june)).toEqual([
      expect.objectContaining({
        name: `Late usage, ${april.number} (Apr 2025): +500 tokens`,
        revenueBreakdown: expect.objectContaining({ total: 3.5 }),
      }),
    ]);
  });

  it("a cycle adjusted once is adjusted again only by usage of it stored since", async () => {
    const { account, contract } = await tokensAccount(server);
    // 120 days: March (finalized Apr 1) is still in the window on July 1.
    expect((await setLateUsage(server, account, { policy: "NEXT_INVOICE", windowDays: 120 })).status).toBe(200);
    await account.post("/events", { events: [tokens("m1", "2025-03-10T12:00:00Z", 800)] });
    await account.run("2025-04-01T00:00:00Z"); // March: 800 = 8.00
    await account.post("/events", { events: [tokens("late-1", "2025-03-20T12:00:00Z", 500)] });
    // As in production, hours apart: March invoiced 2 hours ago, its late tokens stored 1 hour ago.
    const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3600_000);
    await server.service.db
      .collection("invoices")
      .updateMany(
        { accountId: account.accountId },
        { $set: { createdAt: hoursAgo(2), finalizationLoggedAt: hoursAgo(2) } },
      );
    const rollups = server.service.db.collection("usage_rollups");
    await rollups.updateMany({ accountId: account.accountId }, { $set: { storedAt: hoursAgo(1) } });

    // May 1 (April's invoice): March priced again, +3.50 (1,300 = 10.00 + 1.50 − 8.00).
    const batchReads = { originalReads: 1, storedAtReads: 0, rollupReads: 4 }; // the cycle's usage, the originals'
    expect(await countedRun(account, "2025-05-01T00:00:00Z")).toEqual(batchReads);
    // June 1 (May's invoice): March's late tokens were stored before April's invoice took them: March is not priced
    // again (before: it was, on every run of the window, finding 0 each time), and May carries nothing late.
    expect(await countedRun(account, "2025-06-01T00:00:00Z")).toEqual(batchReads);
    // 100 more late tokens: July 1 prices March again, +0.50 (1,400 = 12.00 − 11.50).
    await account.post("/events", { events: [tokens("late-2", "2025-03-25T12:00:00Z", 100)] });
    expect(await countedRun(account, "2025-07-01T00:00:00Z")).toEqual(batchReads);
    const [, april, may, june] = await account.invoices(contract.id);
    expect(lateLines(april).map((line: any) => line.revenueBreakdown.total)).toEqual([3.5]);
    expect(lateLines(may)).toEqual([]);
    expect(lateLines(june).map((line: any) => line.revenueBreakdown.total)).toEqual([0.5]);
  });

  it("a contract whose terms price no usage reads nothing for it", async () => {
    const account = await billingAccount(server, { name: "Flat Co" });
    await account.contract({
      startDate: "2025-03-01T00:00:00Z",
      products: [{ displayName: "Platform", catalogProductId: "platform", pricing: { type: "FLAT", price: 100 } }],
    });
    await account.run("2025-04-01T00:00:00Z");
    expect(await countedRun(account, "2025-05-01T00:00:00Z")).toEqual({
      originalReads: 0,
      storedAtReads: 0,
      rollupReads: 0,
    });
  });
});
