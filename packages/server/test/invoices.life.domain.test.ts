import type { Invoice } from "@billing/shared";
import { describe, expect, it } from "vitest";
import { DomainError } from "../src/domain/errors.js";
import {
  amountDueOf,
  applyInvoiceChange,
  billingStatusOf,
  type InvoiceLife,
  isOverdue,
} from "../src/domain/invoices/life.js";
import { assertLegalChange, eventAfter, isLegalChange, statusAfter } from "../src/domain/invoices/status.js";
import { asMicros } from "../src/domain/money/micros.js";
import { formatDocumentNumber } from "../src/repositories/document-numbers.js";

/** A draft of 100.00 USD (100_000_000 micros); `priced` stands for its lines, here a label. */
const draft: InvoiceLife<string> = {
  status: "DRAFT",
  number: null,
  totalMicros: asMicros(100_000_000),
  priced: "as drafted",
  amountPaid: asMicros(0),
  amountCredited: asMicros(0),
  finalizedAt: null,
  finalizationLoggedAt: null,
  paidAt: null,
  voidedAt: null,
  uncollectibleAt: null,
  changeCount: 0,
};
const at = new Date("2024-02-01T00:00:00Z");
const later = new Date("2024-02-09T00:00:00Z");

describe("applyInvoiceChange", () => {
  it("finalizes with the change's number, lines and total, issued at its `at`, and counts the change", () => {
    // A backfill run at Feb 1 finalizing on Feb 9: issued Feb 1, made Feb 9.
    const finalized = applyInvoiceChange(draft, {
      n: 1,
      kind: "FINALIZE",
      at,
      loggedAt: later,
      totalMicros: asMicros(80_000_000),
      priced: "credits applied",
      number: "INV-000001",
    });
    expect(finalized).toEqual({
      ...draft,
      status: "FINALIZED",
      number: "INV-000001",
      totalMicros: asMicros(80_000_000),
      priced: "credits applied",
      finalizedAt: at,
      finalizationLoggedAt: later,
      changeCount: 1,
    });
    // 80.00 due, nothing paid.
    expect(amountDueOf(finalized)).toBe(80_000_000);
    expect(billingStatusOf(finalized)).toBe("None");
  });

  it("numbers an invoice stored before the invoice life, giving it the finalization fields it never had", () => {
    const storedBefore: InvoiceLife<string> = { ...draft, status: "FINALIZED" };
    const numbered = applyInvoiceChange(storedBefore, {
      n: 1,
      kind: "NUMBER",
      at,
      loggedAt: at,
      totalMicros: draft.totalMicros,
      priced: draft.priced,
      number: "INV-000001",
    });
    expect(numbered).toEqual({
      ...storedBefore,
      number: "INV-000001",
      finalizedAt: at,
      finalizationLoggedAt: at,
      changeCount: 1,
    });
  });

  it("adds payments and OFFSET credit notes: 80.00 − 30.00 paid − 20.00 credited = 30.00 due, then 0 and Paid", () => {
    const finalized: InvoiceLife<string> = {
      ...draft,
      status: "FINALIZED",
      totalMicros: asMicros(80_000_000),
      changeCount: 1,
    };
    const payment = { paymentId: "p1", amount: asMicros(30_000_000), date: at };
    const paid = applyInvoiceChange(finalized, { n: 2, kind: "PAYMENT", at, payment });
    const credited = applyInvoiceChange(paid, {
      n: 3,
      kind: "CREDIT_NOTE",
      at,
      creditNoteId: "c1",
      offset: asMicros(20_000_000),
      credits: asMicros(0),
      reason: "OTHER",
    });
    expect(amountDueOf(credited)).toBe(30_000_000);
    expect(billingStatusOf(credited)).toBe("PartiallyPaid");
    expect(credited.paidAt).toBeNull();
    const rest = { paymentId: "p2", amount: asMicros(30_000_000), date: at };
    const settled = applyInvoiceChange(credited, { n: 4, kind: "PAYMENT", at: later, payment: rest });
    expect(settled).toMatchObject({ amountPaid: 60_000_000, amountCredited: 20_000_000, changeCount: 4 });
    // Paid by the change that left nothing due; a later CREDITS note keeps that time.
    expect(settled.paidAt).toEqual(later);
    const creditsNote = {
      creditNoteId: "c2",
      offset: asMicros(0),
      credits: asMicros(5_000_000),
      reason: "OTHER" as const,
    };
    expect(applyInvoiceChange(settled, { n: 5, kind: "CREDIT_NOTE", at: new Date(), ...creditsNote }).paidAt).toEqual(
      later,
    );
    expect(settled.latestPayment).toEqual(rest);
    expect(amountDueOf(settled)).toBe(0);
    expect(billingStatusOf(settled)).toBe("Paid");
  });

  it("marks uncollectible while something is due: 120.00 − 20.00 paid = 100.00 due stays FINALIZED", () => {
    const finalized: InvoiceLife<string> = {
      ...draft,
      status: "FINALIZED",
      totalMicros: asMicros(120_000_000),
      changeCount: 1,
    };
    const payment = { paymentId: "p1", amount: asMicros(20_000_000), date: at };
    const partly = applyInvoiceChange(finalized, { n: 2, kind: "PAYMENT", at, payment });
    const marked = applyInvoiceChange(partly, { n: 3, kind: "UNCOLLECTIBLE", at });
    expect(marked).toMatchObject({ status: "FINALIZED", uncollectibleAt: at, changeCount: 3 });
    expect(amountDueOf(marked)).toBe(100_000_000);
    expect(billingStatusOf(marked)).toBe("Uncollectible");
    // A credit note of 100.00 (OFFSET) still closes it: 120.00 − 20.00 − 100.00 = 0 due, Paid.
    const closed = applyInvoiceChange(marked, {
      n: 4,
      kind: "CREDIT_NOTE",
      at: later,
      creditNoteId: "c1",
      offset: asMicros(100_000_000),
      credits: asMicros(0),
      reason: "OTHER",
    });
    expect(billingStatusOf(closed)).toBe("Paid");
    expect(closed.paidAt).toEqual(later);
    // So does a payment of the 100.00 left.
    const rest = { paymentId: "p2", amount: asMicros(100_000_000), date: later };
    expect(billingStatusOf(applyInvoiceChange(marked, { n: 4, kind: "PAYMENT", at: later, payment: rest }))).toBe(
      "Paid",
    );
  });

  it("voids: nothing is due, nothing is overdue", () => {
    const voided = applyInvoiceChange({ ...draft, status: "FINALIZED" }, { n: 1, kind: "VOID", at });
    expect(voided).toMatchObject({ status: "VOIDED", voidedAt: at });
    expect(amountDueOf(voided)).toBe(0);
    expect(isOverdue(voided, new Date("2024-01-01T00:00:00Z"), at)).toBe(false);
  });
});

describe("overdue", () => {
  const finalized: InvoiceLife<string> = { ...draft, status: "FINALIZED" };
  const dueDate = new Date("2024-03-01T00:00:00Z");
  it("is FINALIZED with something due, strictly after the due date", () => {
    expect(isOverdue(finalized, dueDate, new Date("2024-03-01T00:00:00.001Z"))).toBe(true);
    expect(isOverdue(finalized, dueDate, dueDate)).toBe(false);
    expect(isOverdue(draft, dueDate, new Date("2025-01-01T00:00:00Z"))).toBe(false);
    const paid = { ...finalized, amountPaid: asMicros(100_000_000) };
    expect(isOverdue(paid, dueDate, new Date("2025-01-01T00:00:00Z"))).toBe(false);
  });
});

describe("legal transitions", () => {
  it("allows DRAFT → FINALIZED → VOIDED and DRAFT → VOIDED; payments and credit notes only when FINALIZED", () => {
    expect(isLegalChange("DRAFT", "FINALIZE")).toBe(true);
    expect(isLegalChange("DRAFT", "VOID")).toBe(true);
    expect(isLegalChange("FINALIZED", "VOID")).toBe(true);
    expect(isLegalChange("FINALIZED", "PAYMENT")).toBe(true);
    expect(isLegalChange("FINALIZED", "CREDIT_NOTE")).toBe(true);
    for (const kind of ["FINALIZE", "PAYMENT", "VOID", "CREDIT_NOTE"] as const) {
      expect(isLegalChange("VOIDED", kind)).toBe(false);
    }
    expect(isLegalChange("FINALIZED", "FINALIZE")).toBe(false);
    expect(isLegalChange("DRAFT", "PAYMENT")).toBe(false);
  });

  it("marks uncollectible only a FINALIZED invoice, which stays one and announces nothing itself", () => {
    expect(isLegalChange("FINALIZED", "UNCOLLECTIBLE")).toBe(true);
    expect(isLegalChange("DRAFT", "UNCOLLECTIBLE")).toBe(false);
    expect(isLegalChange("VOIDED", "UNCOLLECTIBLE")).toBe(false);
    expect(statusAfter("UNCOLLECTIBLE")).toBe("FINALIZED");
  });

  it("numbers only a FINALIZED invoice, and reprices only a DRAFT, which stays one", () => {
    expect(isLegalChange("FINALIZED", "NUMBER")).toBe(true);
    expect(isLegalChange("DRAFT", "NUMBER")).toBe(false);
    expect(isLegalChange("VOIDED", "NUMBER")).toBe(false);
    expect(isLegalChange("DRAFT", "REPRICE")).toBe(true);
    expect(isLegalChange("FINALIZED", "REPRICE")).toBe(false);
    expect(isLegalChange("VOIDED", "REPRICE")).toBe(false);
    expect([statusAfter("NUMBER"), statusAfter("REPRICE")]).toEqual(["FINALIZED", "DRAFT"]);
  });

  it("declares each change's event: paid only once nothing is due, none for a reprice", () => {
    const invoice = (billingStatus: "None" | "PartiallyPaid" | "Paid") => ({ billingStatus }) as Invoice;
    expect(eventAfter("FINALIZE", invoice("None"))).toBe("invoice.finalized");
    expect(eventAfter("NUMBER", invoice("None"))).toBe("invoice.finalized");
    expect(eventAfter("VOID", invoice("None"))).toBe("invoice.voided");
    expect(eventAfter("PAYMENT", invoice("PartiallyPaid"))).toBeUndefined();
    expect(eventAfter("PAYMENT", invoice("Paid"))).toBe("invoice.paid");
    expect(eventAfter("CREDIT_NOTE", invoice("Paid"))).toBe("invoice.paid");
    expect(eventAfter("REPRICE", invoice("None"))).toBeUndefined();
  });

  it("refuses with a 409 naming the current and the wanted status", () => {
    let error: unknown;
    try {
      assertLegalChange("VOIDED", "FINALIZE");
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({
      code: "CONFLICT",
      message: "The invoice is VOIDED: only a DRAFT invoice can be finalized",
    });
  });
});

describe("document numbers", () => {
  it("are the prefix, a dash and 6 digits", () => {
    expect(formatDocumentNumber("INV", 1)).toBe("INV-000001");
    expect(formatDocumentNumber("ACME2", 42)).toBe("ACME2-000042");
    expect(formatDocumentNumber("CN", 1_234_567)).toBe("CN-1234567");
  });
});
