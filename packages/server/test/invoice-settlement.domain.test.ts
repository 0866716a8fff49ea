import { describe, expect, it } from "vitest";
import { allocateRefund, externalRefundMicros } from "../src/domain/collection/refunds.js";
import type { DomainError } from "../src/domain/errors.js";
import type { InvoiceChange, InvoiceLife } from "../src/domain/invoices/life.js";
import {
  assertCreditable,
  assertPayable,
  assertVoidable,
  historyOf,
  type InvoiceHistory,
  providerRefundOf,
  refundableAsCreditsMicros,
} from "../src/domain/invoices/settlement.js";
import { dueStep, EMPTY_LEDGER, grantStep, paymentStep, reversalStep } from "../src/domain/ledger.js";
import { asMicros } from "../src/domain/money/micros.js";

/** Payments, voids and credit notes as the pure rules judge them (src/domain/invoices/settlement.ts). */
const USD = 1_000_000;
const life = (fields: Partial<InvoiceLife<null>> = {}): InvoiceLife<null> => ({
  status: "FINALIZED",
  number: "INV-000001",
  totalMicros: asMicros(100 * USD),
  priced: null,
  amountPaid: asMicros(0),
  amountCredited: asMicros(0),
  finalizedAt: new Date(0),
  finalizationLoggedAt: new Date(0),
  paidAt: null,
  voidedAt: null,
  uncollectibleAt: null,
  changeCount: 1,
  ...fields,
});
const history = (fields: Partial<InvoiceHistory> = {}): InvoiceHistory => ({
  paymentIds: new Set(),
  creditNotes: 0,
  refundedAsCreditsMicros: asMicros(0),
  refundedToProviderMicros: asMicros(0),
  providerRefunded: new Map(),
  paidByTransaction: new Map(),
  providerPaid: new Set(),
  ...fields,
});
/** The 409 a rule throws, or undefined when it allows the change. */
const refusal = (rule: () => void) => {
  try {
    rule();
    return undefined;
  } catch (error) {
    return error as DomainError;
  }
};

describe("history of an invoice's log", () => {
  it("counts payments and credit notes, and adds up what CREDITS notes gave back (2.5 + 4 = 6.5)", () => {
    const at = new Date(0);
    const payment = { paymentId: "p1", amount: asMicros(USD), date: at };
    const note = (creditNoteId: string, offset: number, credits: number) =>
      ({
        kind: "CREDIT_NOTE",
        at,
        creditNoteId,
        offset: asMicros(offset),
        credits: asMicros(credits),
        reason: "OTHER",
      }) as const;
    expect(
      historyOf([
        { kind: "FINALIZE" },
        { kind: "PAYMENT", at, payment },
        note("c1", 0, 2.5 * USD),
        note("c2", 3 * USD, 0),
        note("c3", 0, 4 * USD),
      ]),
    ).toEqual({
      paymentIds: new Set(["p1"]),
      creditNotes: 3,
      refundedAsCreditsMicros: 6.5 * USD,
      refundedToProviderMicros: 0,
      providerRefunded: new Map(),
      paidByTransaction: new Map(),
      providerPaid: new Set(),
    });
  });
});

describe("PROVIDER refunds (credit notes refunded through the payment provider)", () => {
  const at = new Date(0);
  const paid = (paymentId: string, transactionId: string, amount: number) =>
    ({ kind: "PAYMENT", at, payment: { paymentId, transactionId, amount: asMicros(amount), date: at } }) as const;
  const refunded = (
    creditNoteId: string,
    paymentId: string,
    micros: number,
  ): Extract<InvoiceChange<unknown>, { kind: "CREDIT_NOTE" }> => ({
    kind: "CREDIT_NOTE",
    at,
    creditNoteId,
    offset: asMicros(0),
    credits: asMicros(0),
    reason: "OTHER",
    providerRefund: { provider: "stripe", origin: "API", refunds: [{ paymentId, micros: asMicros(micros) }] },
  });

  it("oldest payment first: 30 + 45.50 collected, 10 refunded of the first; 50 = 20 of pi_1 + 30 of pi_2", () => {
    const history = historyOf([
      { kind: "FINALIZE" },
      paid("p1", "pi_1", 30 * USD),
      paid("p2", "pi_2", 45.5 * USD),
      paid("p3", "cash-17", 10 * USD), // typed in by hand: not the provider's to refund
      refunded("c1", "pi_1", 10 * USD),
    ]);
    expect(history.refundedToProviderMicros).toBe(10 * USD);
    const paidLife = life({ totalMicros: asMicros(85.5 * USD), amountPaid: asMicros(85.5 * USD) });
    const options = { creditsUsedMicros: asMicros(0), currency: "USD", providerPaymentIds: new Set(["pi_1", "pi_2"]) };
    expect(providerRefundOf(paidLife, history, { ...options, amountMicros: asMicros(50 * USD) })).toEqual([
      { paymentId: "pi_1", micros: 20 * USD },
      { paymentId: "pi_2", micros: 30 * USD },
    ]);
    // (30 − 10) + 45.50 = 65.50 at most: the 10.00 paid in cash is not the provider's.
    expect(
      refusal(() => providerRefundOf(paidLife, history, { ...options, amountMicros: asMicros(65.51 * USD) })),
    ).toMatchObject({
      issues: [{ path: "amount", message: "at most 65.5 for refund PROVIDER" }],
    });
    // CREDITS: paid 85.50 − 10 refunded to the card = 75.50.
    expect(refundableAsCreditsMicros(paidLife, asMicros(0), history)).toBe(75.5 * USD);
  });

  it("a dashboard refund: the provider's total past the log's, 3000 − 2000 = 1000; our own or a replay 0", () => {
    expect(allocateRefund([{ paymentId: "pi_1", micros: asMicros(5) }], asMicros(3))).toEqual([
      { paymentId: "pi_1", micros: 3 },
    ]);
    expect(externalRefundMicros(asMicros(3000), asMicros(2000))).toBe(1000);
    expect(externalRefundMicros(asMicros(2000), asMicros(2000))).toBe(0);
    expect(externalRefundMicros(asMicros(1500), asMicros(2000))).toBe(0);
  });
});

describe("payments", () => {
  it("at most the amount due: 100 − 99.999999 paid leaves 0.000001", () => {
    const almost = life({ amountPaid: asMicros(99_999_999) });
    expect(refusal(() => assertPayable(almost, history(), asMicros(1), "USD"))).toBeUndefined();
    const over = refusal(() => assertPayable(almost, history(), asMicros(2), "USD"));
    expect(over?.code).toBe("CONFLICT");
    expect(over?.message).toBe("amount 0.000002 USD is more than the amount due, 0.000001 USD");
    expect(over?.issues).toEqual([{ path: "amount", message: "at most the amount due, 0.000001" }]);
  });

  it("only a FINALIZED invoice takes them, the refusal naming its status and the one wanted", () => {
    for (const status of ["DRAFT", "VOIDED"] as const) {
      expect(refusal(() => assertPayable(life({ status }), history(), asMicros(USD), "USD"))?.message).toBe(
        `The invoice is ${status}: only a FINALIZED invoice can be paid`,
      );
    }
  });
});

describe("voids", () => {
  it("a DRAFT or an unpaid FINALIZED invoice; not one paid, credited back as credits, or voided", () => {
    expect(refusal(() => assertVoidable(life({ status: "DRAFT" }), history(), "USD"))).toBeUndefined();
    expect(
      refusal(() => assertVoidable(life({ amountCredited: asMicros(10 * USD) }), history(), "USD")),
    ).toBeUndefined();
    expect(refusal(() => assertVoidable(life({ amountPaid: asMicros(1) }), history(), "USD"))?.message).toBe(
      "The invoice is FINALIZED with 0.000001 USD paid: it cannot become VOIDED",
    );
    expect(
      refusal(() => assertVoidable(life(), history({ refundedAsCreditsMicros: asMicros(5 * USD) }), "USD"))?.code,
    ).toBe("CONFLICT");
    expect(refusal(() => assertVoidable(life({ status: "VOIDED" }), history(), "USD"))?.message).toBe(
      "The invoice is VOIDED: only a DRAFT or FINALIZED invoice can be voided",
    );
  });
});

describe("credit notes", () => {
  const offset = (amountMicros: number) => ({
    refund: "OFFSET" as const,
    amountMicros: asMicros(amountMicros),
    creditsUsedMicros: asMicros(0),
    currency: "USD",
  });

  it("OFFSET: at most the amount due (100 − 70 paid = 30)", () => {
    const paid = life({ amountPaid: asMicros(70 * USD) });
    expect(refusal(() => assertCreditable(paid, history(), offset(30 * USD)))).toBeUndefined();
    expect(refusal(() => assertCreditable(paid, history(), offset(30 * USD + 1)))?.message).toBe(
      "amount 30.000001 USD is more than the amount due, 30 USD",
    );
  });

  it("CREDITS: at most paid 70 + credits used 25 − earlier CREDITS notes 15 = 80", () => {
    const paid = life({ amountPaid: asMicros(70 * USD) });
    const earlier = history({ refundedAsCreditsMicros: asMicros(15 * USD) });
    expect(refundableAsCreditsMicros(paid, asMicros(25 * USD), earlier)).toBe(80 * USD);
    const credits = (amountMicros: number) => ({
      refund: "CREDITS" as const,
      amountMicros: asMicros(amountMicros),
      creditsUsedMicros: asMicros(25 * USD),
      currency: "USD",
    });
    expect(refusal(() => assertCreditable(paid, earlier, credits(80 * USD)))).toBeUndefined();
    expect(refusal(() => assertCreditable(paid, earlier, credits(80 * USD + 1)))?.issues).toEqual([
      { path: "amount", message: "at most 80 for refund CREDITS" },
    ]);
  });

  it("only on a FINALIZED invoice", () => {
    expect(refusal(() => assertCreditable(life({ status: "DRAFT" }), history(), offset(USD)))?.message).toBe(
      "The invoice is DRAFT: only a FINALIZED invoice can be credited",
    );
  });
});

describe("reversal of a voided invoice's credits", () => {
  const at = (text: string) => new Date(`${text}T00:00:00Z`);
  const terms = { effectiveAt: at("2024-01-01"), priority: 50, currency: "USD" };

  it("gives a spent grant back its place and terms, and one still open its remainder", () => {
    const a = grantStep(EMPTY_LEDGER, {
      grantId: "a",
      amountMicros: asMicros(30 * USD),
      expiresAt: undefined,
      ...terms,
    });
    const b = grantStep(a.after, { grantId: "b", amountMicros: asMicros(50 * USD), expiresAt: undefined, ...terms });
    // An invoice of 40 burns all of a (30) and 10 of b, leaving b 40.
    const first = paymentStep(b.after, [
      { grantId: "a", micros: asMicros(30 * USD) },
      { grantId: "b", micros: asMicros(10 * USD) },
    ]);
    const paid = dueStep(first!.after, at("2024-02-01"))!.after;
    expect(paid.balanceMicros).toBe(40 * USD);
    const grantA = { grantId: "a", seq: 1, amountMicros: asMicros(30 * USD), expiresAt: undefined, ...terms };
    const backToA = reversalStep(paid, grantA, asMicros(30 * USD));
    expect(backToA).toMatchObject({ type: "Reversal", grantId: "a", amountMicros: 30 * USD });
    const grantB = { grantId: "b", seq: 2, amountMicros: asMicros(50 * USD), expiresAt: undefined, ...terms };
    const backToB = reversalStep(backToA.after, grantB, asMicros(10 * USD)).after;
    expect(backToB.balanceMicros).toBe(80 * USD);
    expect(backToB.grants.map((grant) => [grant.grantId, grant.seq, grant.remainingMicros])).toEqual([
      ["a", 1, 30 * USD],
      ["b", 2, 50 * USD],
    ]);
  });

  it("a grant expired meanwhile expires again at once: its Expiration is the next due step", () => {
    const expired = { grantId: "x", seq: 1, amountMicros: asMicros(20 * USD), expiresAt: at("2024-03-01"), ...terms };
    const spent = { ...EMPTY_LEDGER, seq: 3 };
    const back = reversalStep(spent, expired, asMicros(12 * USD)).after;
    expect(dueStep(back, at("2024-04-01"))).toMatchObject({
      type: "Expiration",
      grantId: "x",
      amountMicros: -12 * USD,
      after: { balanceMicros: 0, grants: [] },
    });
  });
});
