import { describe, expect, it } from "vitest";
import { type BillingAccount, billingAccount, committed } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { testHooks } from "./support/hooks.js";
import { parseMetrics, sampleValue } from "./support/metrics.js";

/**
 * An invoice's life completed or undone after a crash or a race (docs/decisions.md, "Invoice life: payments, voids,
 * credit notes"): drafts for 30 days, so that a finalization and a void can race on a draft.
 */
const faults = testHooks();
const server = useTestServer({ invoiceDraftMs: 30 * 86_400_000, hooks: faults.hooks });

const rows = (ledger: { type: string; amount: number; balanceAfterEntry: number }[]) =>
  ledger.map((entry) => [entry.type, entry.amount, entry.balanceAfterEntry]);

/** January 2024 of 3 seats at 10.00 = 30.00, made by a run at Feb 1: a draft (finalized by runs from Mar 2). */
async function januaryDraft(account: BillingAccount) {
  const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(3, 10)] });
  await account.run("2024-02-01T00:00:00Z");
  const [draft] = await account.invoices(contract.id);
  expect(draft).toMatchObject({ status: "DRAFT", amount: 30 });
  return draft;
}

describe("a run finalizing at a past `at`", () => {
  it("issues the invoice at the run's `at`, not on the server's clock", async () => {
    const account = await billingAccount(server);
    const draft = await januaryDraft(account);
    // Due Feb 1 + 30 days of draft period = Mar 2: a backfill run at Mar 3 finalizes it, issued Mar 3 2024.
    await account.run("2024-03-03T00:00:00Z");
    const finalized = (await server.rest("GET", `/invoices/${draft.id}`, { token: account.token })).body.invoice;
    expect(finalized).toMatchObject({ status: "FINALIZED", finalizedAt: "2024-03-03T00:00:00.000Z" });
  });
});

describe("a CREDITS note cut short before its grant and document", () => {
  it("is completed by the next read of its invoice or list of its notes: number, grant, document, once", async () => {
    const account = await billingAccount(server);
    const draft = await januaryDraft(account);
    await server.rest("POST", `/invoices/${draft.id}/finalize`, { token: account.token });
    await account.post(`/invoices/${draft.id}/payments`, { amount: 10 }, 201);
    faults.fail("credits.append", account.customerId, 1);
    const body = { invoiceId: draft.id, amount: 4, reason: "OTHER", refund: "CREDITS" };
    expect((await server.rest("POST", "/credit-notes", { token: account.token, body })).status).toBe(500);
    const notes = async (query: string) =>
      (await server.rest("GET", `/credit-notes?${query}`, { token: account.token })).body.creditNotes;
    // The customer's list reads no invoice: nothing yet.
    expect(await notes(`customerId=${account.customerId}`)).toEqual([]);

    const [note] = await notes(`invoiceId=${draft.id}`);
    expect(note).toMatchObject({ number: "CN-000001", amount: 4, refund: "CREDITS" });
    // The note's grant of 4, once, however often the invoice is read.
    await server.rest("GET", `/invoices/${draft.id}`, { token: account.token });
    await server.rest("GET", `/invoices?customerId=${account.customerId}`, { token: account.token });
    expect(await notes(`customerId=${account.customerId}`)).toEqual([note]);
    const ledger = await account.ledger();
    expect(rows(ledger)).toEqual([["Grant", 4, 4]]);
    expect(ledger[0].creditNoteId).toBe(note.id);
  });
});

/** A grant of 8.00 and the January draft, whose finalization (under way) waits as it is about to debit the grant. */
async function finalizationAtDebit() {
  const account = await billingAccount(server);
  await account.grant(8);
  const draft = await januaryDraft(account);
  const debit = faults.pauseOnce("credits.append", account.customerId);
  const finalizing = server.rest("POST", `/invoices/${draft.id}/finalize`, { token: account.token });
  await debit.reached;
  return { account, draft, debit, finalizing };
}

describe("a void racing a finalization", () => {
  it("void wins while the finalization is debiting credits: the debit is given back, the ledger balanced", async () => {
    // The finalization has priced 30.00 and is about to debit the 8.00 grant when the void comes and completes.
    const { account, draft, debit, finalizing } = await finalizationAtDebit();
    const voided = await server.rest("POST", `/invoices/${draft.id}/void`, { token: account.token, body: {} });
    expect(voided.status).toBe(200);
    debit.release();
    expect((await finalizing).status).toBe(409);
    const invoice = (await server.rest("GET", `/invoices/${draft.id}`, { token: account.token })).body.invoice;
    expect(invoice).toMatchObject({ status: "VOIDED", number: null, amountDue: 0 });
    // 8 granted, 8 debited by the losing finalization, 8 given back: 8 again.
    expect(rows(await account.ledger())).toEqual([
      ["Grant", 8, 8],
      ["Usage", -8, 0],
      ["Reversal", 8, 8],
    ]);
    expect(await account.balance()).toBe(8);
  });

  it("debiting after the void, stopped before giving the debit back: the next run gives it back", async () => {
    const { account, draft, debit, finalizing } = await finalizationAtDebit();
    expect((await server.rest("POST", `/invoices/${draft.id}/void`, { token: account.token, body: {} })).status).toBe(
      200,
    );
    // The database fails as the losing finalization writes its Reversal: the 8.00 debit is left, noted as pending.
    faults.fail("credits.append", account.customerId, 1);
    debit.release();
    expect((await finalizing).status).toBe(500);
    expect(rows(await account.ledger())).toEqual([
      ["Grant", 8, 8],
      ["Usage", -8, 0],
    ]);
    await account.run("2024-02-02T00:00:00Z");
    expect(rows(await account.ledger())).toEqual([
      ["Grant", 8, 8],
      ["Usage", -8, 0],
      ["Reversal", 8, 8],
    ]);
  });

  it("at once, 5 rounds: whatever the order, the ledger matches the invoice", async () => {
    for (let round = 1; round <= 5; round += 1) {
      const account = await billingAccount(server);
      await account.grant(2);
      const draft = await januaryDraft(account);
      const [finalized, voided] = await Promise.all([
        server.rest("POST", `/invoices/${draft.id}/finalize`, { token: account.token }),
        server.rest("POST", `/invoices/${draft.id}/void`, { token: account.token, body: {} }),
      ]);
      const invoice = (await server.rest("GET", `/invoices/${draft.id}`, { token: account.token })).body.invoice;
      if (voided.status === 200) {
        // Voided, before or after a finalization: the 2.00 granted is all back.
        expect(invoice.status).toBe("VOIDED");
        expect(await account.balance()).toBe(2);
      } else {
        // Finalized first, and the void refused: 2.00 of credits paid 2.00 of the 30.00.
        expect([finalized.status, invoice.status, invoice.revenueBreakdown.creditsUsed]).toEqual([200, "FINALIZED", 2]);
        expect(await account.balance()).toBe(0);
      }
    }
  });
});

describe("invoices stored before the invoice life", () => {
  it("are numbered by the next run in the order they were stored, and found by the life filters", async () => {
    const account = await billingAccount(server);
    for (const price of [10, 20])
      await account.contract({
        startDate: "2024-01-01T00:00:00Z",
        endDate: "2024-02-01T00:00:00Z",
        products: [committed(1, price)],
      });
    // January only, due Feb 1, a draft until Mar 2: a run at Mar 3 makes both final at once.
    const finalizedSoFar = async () => {
      const samples = parseMetrics(await (await fetch(`${server.url}/metrics`)).text());
      const count = sampleValue(samples, "billing_invoices_finalized_total", { currency: "USD" });
      return [count, sampleValue(samples, "billing_invoiced_amount_total", { currency: "USD" })] as const;
    };
    const [countBefore, amountBefore] = await finalizedSoFar();
    await account.run("2024-03-03T00:00:00Z");
    // Two finalizations of 10.00 + 20.00 = 30.00 USD.
    expect(await finalizedSoFar()).toEqual([countBefore + 2, amountBefore + 30]);
    const made = await account.allInvoices();
    // As the first engine stored them: no life fields, no change log, no numbers.
    const { db } = server.service;
    await db.collection("invoices").updateMany(
      { accountId: account.accountId },
      {
        $unset: Object.fromEntries(LIFE_FIELDS.map((field) => [field, ""])),
      },
    );
    await db.collection("invoiceChanges").deleteMany({ accountId: account.accountId });
    await db.collection("documentNumbers").deleteMany({ accountId: account.accountId });
    await db.collection("documentNumberAttempts").deleteMany({ accountId: account.accountId });
    const finalized = async () =>
      (await server.rest("GET", `/invoices?status=FINALIZED`, { token: account.token })).body.invoices;
    expect(await finalized()).toEqual([]);
    expect((await account.allInvoices()).map((invoice) => [invoice.status, invoice.number])).toEqual([
      ["FINALIZED", null],
      ["FINALIZED", null],
    ]);

    await account.run("2024-03-03T00:00:00Z");
    // Numbering them bills nothing new: not counted as finalizations again.
    expect(await finalizedSoFar()).toEqual([countBefore + 2, amountBefore + 30]);
    const numbered = await finalized();
    expect(
      numbered.map((invoice: { id: string; number: string; amountDue: number }) => [
        invoice.id,
        invoice.number,
        invoice.amountDue,
      ]),
    ).toEqual([
      [made[0].id, "INV-000001", 10],
      [made[1].id, "INV-000002", 20],
    ]);
  });
});

/** The fields the invoice life added to a stored invoice. */
const LIFE_FIELDS = [
  "status",
  "number",
  "changeCount",
  "amountPaid",
  "amountCredited",
  "owing",
  "finalizedAt",
  "finalizationLoggedAt",
  "paidAt",
  "voidedAt",
];
