import { describe, expect, it } from "vitest";
import {
  amountDueMicros,
  billingStatusOf,
  creditNoteRefusal,
  type InvoiceBalance,
  paymentRefusal,
  refundableAsCreditsMicros,
  voidRefusal,
} from "../src/domain/invoices/settlement.js";
import { dueStep, EMPTY_LEDGER, grantStep, paymentStep, reversalStep } from "../src/domain/ledger.js";

/** Payments, voids and credit notes as the pure rules judge them (src/domain/invoices/settlement.ts). */
const USD = 1_000_000;
const balance = (fields: Partial<InvoiceBalance> = {}): InvoiceBalance => ({
  status: "FINALIZED",
  totalMicros: 100 * USD,
  paidMicros: 0,
  creditedMicros: 0,
  creditsUsedMicros: 0,
  refundedAsCreditsMicros: 0,
  payments: 0,
  creditNotes: 0,
  ...fields,
});

describe("amount due and billing status", () => {
  it("100 − 30 paid − 20 credited = 50 due, PartiallyPaid; a voided invoice owes nothing", () => {
    const partly = balance({ paidMicros: 30 * USD, creditedMicros: 20 * USD });
    expect(amountDueMicros(partly)).toBe(50 * USD);
    expect(billingStatusOf(partly)).toBe("PartiallyPaid");
    expect(amountDueMicros(balance({ status: "VOIDED" }))).toBe(0);
  });

  it("None while nothing is paid, even when an OFFSET note took all that was owed; Paid once paid and owing 0", () => {
    expect(billingStatusOf(balance())).toBe("None");
    expect(billingStatusOf(balance({ creditedMicros: 100 * USD }))).toBe("None");
    expect(billingStatusOf(balance({ paidMicros: 60 * USD, creditedMicros: 40 * USD }))).toBe("Paid");
  });
});

describe("payments", () => {
  it("at most the amount due: 100 − 99.999999 paid leaves 0.000001", () => {
    const almost = balance({ paidMicros: 99_999_999, payments: 1 });
    expect(paymentRefusal(almost, 1)).toBeUndefined();
    const over = paymentRefusal(almost, 2);
    expect(over?.code).toBe("CONFLICT");
    expect(over?.message).toBe("amount 0.000002 USD is more than the amount due, 0.000001 USD");
    expect(over?.issues).toEqual([{ path: "amount", message: "at most the amount due, 0.000001" }]);
  });

  it("only a FINALIZED invoice takes them, the refusal naming its status", () => {
    for (const status of ["DRAFT", "VOIDED"] as const) {
      expect(paymentRefusal(balance({ status }), USD)?.message).toBe(
        `The invoice is ${status}: only a FINALIZED invoice takes payments`,
      );
    }
  });
});

describe("voids", () => {
  it("a DRAFT or an unpaid FINALIZED invoice; not one paid, credited back as credits, or voided", () => {
    expect(voidRefusal(balance({ status: "DRAFT" }))).toBeUndefined();
    expect(voidRefusal(balance({ creditedMicros: 10 * USD }))).toBeUndefined();
    expect(voidRefusal(balance({ paidMicros: 1 }))?.message).toBe(
      "The invoice is FINALIZED with 0.000001 USD paid: it cannot become VOIDED",
    );
    expect(voidRefusal(balance({ refundedAsCreditsMicros: 5 * USD }))?.code).toBe("CONFLICT");
    expect(voidRefusal(balance({ status: "VOIDED" }))?.message).toContain("VOIDED already");
  });
});

describe("credit notes", () => {
  it("OFFSET: at most the amount due (100 − 70 paid = 30)", () => {
    const paid = balance({ paidMicros: 70 * USD });
    expect(creditNoteRefusal(paid, { refund: "OFFSET" }, 30 * USD)).toBeUndefined();
    expect(creditNoteRefusal(paid, { refund: "OFFSET" }, 30 * USD + 1)?.message).toBe(
      "amount 30.000001 USD is more than the amount due, 30 USD",
    );
  });

  it("CREDITS: at most paid 70 + credits used 25 − earlier CREDITS notes 15 = 80", () => {
    const paid = balance({ paidMicros: 70 * USD, creditsUsedMicros: 25 * USD, refundedAsCreditsMicros: 15 * USD });
    expect(refundableAsCreditsMicros(paid)).toBe(80 * USD);
    expect(creditNoteRefusal(paid, { refund: "CREDITS" }, 80 * USD)).toBeUndefined();
    expect(creditNoteRefusal(paid, { refund: "CREDITS" }, 80 * USD + 1)?.issues).toEqual([
      { path: "amount", message: "at most 80 for refund CREDITS" },
    ]);
  });

  it("only on a FINALIZED invoice", () => {
    expect(creditNoteRefusal(balance({ status: "DRAFT" }), { refund: "OFFSET" }, USD)?.message).toBe(
      "The invoice is DRAFT: only a FINALIZED invoice takes credit notes",
    );
  });
});

describe("reversal of a voided invoice's credits", () => {
  const at = (text: string) => new Date(`${text}T00:00:00Z`);
  const terms = { effectiveAt: at("2024-01-01"), priority: 50 };

  it("gives a spent grant back its place and terms, and one still open its remainder", () => {
    const a = grantStep(EMPTY_LEDGER, { grantId: "a", amountMicros: 30 * USD, expiresAt: undefined, ...terms });
    const b = grantStep(a.after, { grantId: "b", amountMicros: 50 * USD, expiresAt: undefined, ...terms });
    // An invoice of 40 burns all of a (30) and 10 of b, leaving b 40.
    const first = paymentStep(b.after, [
      { grantId: "a", micros: 30 * USD },
      { grantId: "b", micros: 10 * USD },
    ]);
    const paid = dueStep(first!.after, at("2024-02-01"))!.after;
    expect(paid.balanceMicros).toBe(40 * USD);
    const grantA = { grantId: "a", seq: 1, amountMicros: 30 * USD, expiresAt: undefined, ...terms };
    const backToA = reversalStep(paid, grantA, 30 * USD);
    expect(backToA).toMatchObject({ type: "Reversal", grantId: "a", amountMicros: 30 * USD });
    const grantB = { grantId: "b", seq: 2, amountMicros: 50 * USD, expiresAt: undefined, ...terms };
    const backToB = reversalStep(backToA.after, grantB, 10 * USD).after;
    expect(backToB.balanceMicros).toBe(80 * USD);
    expect(backToB.grants.map((grant) => [grant.grantId, grant.seq, grant.remainingMicros])).toEqual([
      ["a", 1, 30 * USD],
      ["b", 2, 50 * USD],
    ]);
  });

  it("a grant expired meanwhile expires again at once: its Expiration is the next due step", () => {
    const expired = { grantId: "x", seq: 1, amountMicros: 20 * USD, expiresAt: at("2024-03-01"), ...terms };
    const spent = { ...EMPTY_LEDGER, seq: 3 };
    const back = reversalStep(spent, expired, 12 * USD).after;
    expect(dueStep(back, at("2024-04-01"))).toMatchObject({
      type: "Expiration",
      grantId: "x",
      amountMicros: -12 * USD,
      after: { balanceMicros: 0, grants: [] },
    });
  });
});
