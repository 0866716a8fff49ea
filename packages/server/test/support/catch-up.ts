import { monthly } from "./billing.js";

/** The grace period of the catch-up files' servers: a prepaid invoice is ready an hour before an arrears one. */
export const GRACE_MS = 60 * 60_000;

/** Prepaid FLAT 10 and arrears FLAT 20, monthly on the 1st: each month 10 due at its start, 20 due at its end. */
export const prepaidBesideArrears = (startDate: string, endDate?: string) => ({
  startDate,
  ...(endDate && { endDate }),
  products: [
    {
      displayName: "Platform",
      scheduling: monthly(1),
      pricing: { type: "FLAT", price: 10 },
      paymentTerm: "Prepayment",
    },
    { displayName: "Support", scheduling: monthly(1), pricing: { type: "FLAT", price: 20 } },
  ],
});

/** The contract's invoices as [cycle start, timing, amount]: "advance" for the prepaid ones. */
export const summary = (invoices: any[]) =>
  invoices
    .map((invoice) => [invoice.billingCycle.startTime, invoice.lineItems[0].name, invoice.amount])
    .sort(([a, nameA], [b, nameB]) => (a < b ? -1 : a > b ? 1 : nameA < nameB ? -1 : 1));
