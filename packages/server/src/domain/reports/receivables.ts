import { DAY_MS } from "@billing/shared";
import { amountDueOf, type InvoiceChange, type InvoiceLife } from "../invoices/life.js";
import { addMicros, asMicros, type Micros, ZERO_MICROS } from "../money/micros.js";

/**
 * What an invoice's life leaves the customer owing: a FINALIZED invoice's amount due (total − paid − credited by
 * OFFSET notes, never below 0); a draft or a voided invoice owes nothing.
 */
export const receivableOf = (life: InvoiceLife<unknown>): Micros =>
  life.status === "FINALIZED" ? amountDueOf(life) : ZERO_MICROS;

/**
 * The moment a change moves the receivable, for a report as of a past moment: a payment at the date it was paid
 * (never before the invoice's finalization: what was not yet owed cannot be paid down), any other change at its `at`.
 */
export function receivableMomentOf(change: InvoiceChange<unknown>, finalizedAt: Date | null): Date {
  if (change.kind !== "PAYMENT") return change.at;
  const paid = change.payment.date;
  return finalizedAt !== null && paid.getTime() < finalizedAt.getTime() ? finalizedAt : paid;
}

export const AGING_BUCKETS = ["current", "1-30", "31-60", "61-90", "90+"] as const;
export type AgingBucket = (typeof AGING_BUCKETS)[number];
export type Aging = Record<AgingBucket, Micros>;

const utcDay = (at: Date) => Math.floor(at.getTime() / DAY_MS);

/**
 * Days past due as of `asOf`: whole UTC calendar days from the due date's day to asOf's day (due Mar 1, asOf Mar 6:
 * 5). 0 or less while the due date's day has not passed.
 */
export const daysPastDue = (dueDate: Date, asOf: Date): number => utcDay(asOf) - utcDay(dueDate);

/** `current` up to 0 days past due, then 1-30, 31-60, 61-90 and 90+ (91 days and more). */
export function agingBucketOf(days: number): AgingBucket {
  if (days <= 0) return "current";
  if (days <= 30) return "1-30";
  if (days <= 60) return "31-60";
  if (days <= 90) return "61-90";
  return "90+";
}

export const emptyAging = (): Aging => ({
  current: ZERO_MICROS,
  "1-30": ZERO_MICROS,
  "31-60": ZERO_MICROS,
  "61-90": ZERO_MICROS,
  "90+": ZERO_MICROS,
});

/** What one customer owes by due date, as of asOf: the sum of its receivable entries up to asOf. */
export interface OpenBalance {
  customerId: string;
  dueDate: Date;
  micros: Micros;
}

export interface CustomerAging {
  customerId: string;
  aging: Aging;
  total: Micros;
}

/** The aging of open balances as of `asOf`: per customer (by id) and in total; customers owing nothing are left out. */
export function agingOf(balances: readonly OpenBalance[], asOf: Date): { customers: CustomerAging[]; total: Aging } {
  const byCustomer = new Map<string, Aging>();
  const total = emptyAging();
  for (const { customerId, dueDate, micros } of balances) {
    if (micros === 0) continue;
    const bucket = agingBucketOf(daysPastDue(dueDate, asOf));
    const aging = byCustomer.get(customerId) ?? emptyAging();
    aging[bucket] = addMicros(aging[bucket], micros);
    byCustomer.set(customerId, aging);
    total[bucket] = addMicros(total[bucket], micros);
  }
  const customers = [...byCustomer.entries()]
    .map(([customerId, aging]) => ({ customerId, aging, total: sumAging(aging) }))
    .filter(({ total: owed }) => owed !== 0)
    .sort((a, b) => (a.customerId < b.customerId ? -1 : a.customerId > b.customerId ? 1 : 0));
  return { customers, total };
}

export const sumAging = (aging: Aging): Micros =>
  asMicros(AGING_BUCKETS.reduce<number>((sum, bucket) => sum + aging[bucket], 0));
