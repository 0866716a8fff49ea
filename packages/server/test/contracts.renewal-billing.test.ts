import { describe, expect, it } from "vitest";
import type { ContractInMicros, ContractLifeFields } from "../src/domain/billing/contract.js";
import { billingTimeline, type PlannedInvoice } from "../src/domain/billing/items.js";
import { billedContract } from "../src/domain/contracts/billed.js";
import { contractAsOf } from "../src/domain/contracts/lifecycle.js";
import { asMicros } from "../src/domain/money/micros.js";
import { STORED_CONTRACT } from "./support/fixtures.js";

/**
 * Issue 23: a prepaid cycle running past a renewing term's end is billed once (docs/decisions.md, "Contract
 * lifecycle", "A renewing term's end cuts nothing"). Renewal cannot be reached through REST (a contract renews only
 * at an end it lived through, it is created now, and runs refuse a future `at`), so time is walked here through the
 * functions runs use: the contract as of each day, then its invoices due by then, each kept once under its key (as
 * the invoice's unique insert does).
 */

const DAY_MS = 86_400_000;

// A 3-month term from Jan 15 2024, prepaid monthly on the 1st: the billing day differs from the term's.
const quarter = (fields: Partial<ContractLifeFields> = {}): ContractInMicros => ({
  ...STORED_CONTRACT,
  endDate: "2024-04-15T00:00:00.000Z",
  shouldProRateInvoices: true,
  ...fields,
  products: [
    {
      displayName: "Seats",
      scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
      paymentTerm: "Prepayment",
      pricing: { type: "FLAT", priceMicros: asMicros(300_000_000) },
    },
  ],
});

/** A run every day from the start up to `until`; `amend` changes the stored contract on the day it names. */
function billDaily(stored: ContractInMicros, until: string, amend: Record<string, Partial<ContractLifeFields>> = {}) {
  const made = new Map<string, PlannedInvoice>();
  let contract = stored;
  for (let time = Date.parse("2024-01-15T00:00:00Z"); time <= Date.parse(until); time += DAY_MS) {
    const at = new Date(time);
    contract = { ...contractAsOf(contract, at).contract, ...amend[at.toISOString().slice(0, 10)] };
    const billed = billedContract(contract);
    for (const invoice of billed ? billingTimeline(billed, at).due : [])
      if (!made.has(invoice.key)) made.set(invoice.key, invoice);
  }
  const periods = [...made.values()].map(
    ({ start, end }) => `${start.toISOString().slice(0, 10)}..${end.toISOString().slice(5, 10)}`,
  );
  return { contract, periods };
}

describe("a prepaid cycle across a renewing term's end", () => {
  it("bills each month once across two renewals, then cuts the last cycle at the expiry", () => {
    // Renewed at Apr 15 (to Jul 15) and at Jul 15 (to Oct 15); autoRenewContract switched off on Sep 20, before the
    // Oct 1 invoice: it expires at Oct 15, and October is billed Oct 1..Oct 15 only.
    const { contract, periods } = billDaily(quarter(), "2024-12-01T00:00:00Z", {
      "2024-09-20": { autoRenewContract: false },
    });
    expect(contract).toMatchObject({ status: "Expired", renewals: 2, endDate: "2024-10-15T00:00:00.000Z" });
    expect(periods).toEqual([
      "2024-01-01..02-01", // covered from Jan 15: 300.00 × 17 / 31 = 164.52 when priced
      "2024-02-01..03-01",
      "2024-03-01..04-01",
      "2024-04-01..05-01", // across the first end (Apr 15): whole, once (it was Apr 1..Apr 15 and Apr 1..May 1)
      "2024-05-01..06-01",
      "2024-06-01..07-01",
      "2024-07-01..08-01", // across the second end (Jul 15): whole, once
      "2024-08-01..09-01",
      "2024-09-01..10-01",
      "2024-10-01..10-15", // the real end: 300.00 × 14 / 31 = 135.48 when priced
    ]);
  });

  it("still cuts at the end a term that does not renew, and at a termination of a renewing one", () => {
    expect(billDaily(quarter({ autoRenewContract: false }), "2024-06-01T00:00:00Z").periods).toEqual([
      "2024-01-01..02-01",
      "2024-02-01..03-01",
      "2024-03-01..04-01",
      "2024-04-01..04-15",
    ]);
    // Entered after its end (a backfilled term): it expires there, so it is billed up to it, never past.
    const backfilled = quarter({ createdAt: "2024-06-01T00:00:00.000Z" });
    expect(billDaily(backfilled, "2024-06-01T00:00:00Z").periods.at(-1)).toBe("2024-04-01..04-15");
    // Termination scheduled on Apr 20 (invoiced up to May 1) for May 10, after the first renewal: May is cut there.
    const terminated = billDaily(quarter(), "2024-06-01T00:00:00Z", {
      "2024-04-20": { status: "PendingTermination", terminationAt: "2024-05-10T00:00:00.000Z" },
    });
    expect(terminated.periods.slice(-2)).toEqual(["2024-04-01..05-01", "2024-05-01..05-10"]);
  });
});
