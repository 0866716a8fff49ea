import {
  collectionsQuery,
  collectionsReport,
  mrrQuery,
  mrrReport,
  receivablesQuery,
  receivablesReport,
  revenueQuery,
  revenueReport,
} from "@billing/shared";
import { accountProcedure } from "../procedures.js";
import { unbilledAsOf } from "../services/billing/unbilled.js";
import { scopeOf } from "../services/call-scope.js";
import { collectionsReport as collectionsOf } from "../services/reports/collections.js";
import { mrrReport as mrrOf } from "../services/reports/mrr.js";
import { receivablesReport as agingReport } from "../services/reports/receivables.js";
import { revenueReport as revenueOf } from "../services/reports/revenue.js";
import { router } from "../trpc.js";
import { requireCustomer } from "./require-customer.js";

const tags = ["reports"];

export const reportsRouter = router({
  receivables: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/reports/receivables",
        tags,
        summary: "Receivables aging: what customers owe, by days past due",
        description:
          "Per customer and in total, what finalized, unvoided invoices in `currency` leave owed as of `asOf` " +
          "(default now), less payments (at their date) and OFFSET credit notes, in buckets `current`, `1-30`, " +
          "`31-60`, `61-90` and `90+` whole UTC days past the due date. A past `asOf` answers as of then. Summed " +
          "from the insert-only receivables ledger, never from every invoice.",
      },
    })
    .input(receivablesQuery)
    .output(receivablesReport)
    .query(({ ctx, input }) => agingReport(scopeOf(ctx), input, new Date())),

  revenue: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/reports/revenue",
        tags,
        summary: "Revenue per day or month: billed, recognized, deferred",
        description:
          "Per period of [from, to) in `currency` (optionally one customer's): `billed` (revenue of the invoices " +
          "issued in it, tax excluded, less OFFSET credit notes made in it), `recognized` (a line evenly per UTC day " +
          "over its invoice's cycle, a ONE_TIME line on the cycle's first day, an OFFSET note on its day; voided " +
          "invoices recognize nothing), `deferred` at its end and `unbilled` (what the open cycles of at most 50 " +
          "live contracts, priced as of now as a preview prices them, recognized in it up to now; " +
          "`unbilled.truncated` when contracts were left unpriced). Cumulative rounding to the minor unit: a line " +
          "recognizes exactly its amount over its life. At most 366 days or 120 months a call. `customerId` (an id " +
          "or externalId) of no customer of the account: 404.",
      },
    })
    .input(revenueQuery)
    .output(revenueReport)
    .query(async ({ ctx, input }) => {
      const customerId = input.customerId && (await requireCustomer(ctx, input.customerId));
      const scope = scopeOf(ctx);
      return revenueOf(scope, { ...input, customerId }, (currency, ofCustomer, now) =>
        unbilledAsOf(scope, currency, ofCustomer, now),
      );
    }),

  mrr: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/reports/mrr",
        tags,
        summary: "MRR per month: recurring and usage, ARR, and movements by contract",
        description:
          "Per calendar month of [from, to) in `currency` (the first and last cut at them), at the month's end: " +
          "`recurring` (FLAT, PER_SEAT × seats and COMMITMENT charges of a cycle, a month, of each live contract's " +
          "terms in force, before discounts), `usage` (the usage revenue of each live contract's trailing finalized " +
          "cycle), `mrr` their sum and `arr` 12 × mrr; `movements` new, expansion, contraction, churn and " +
          "reactivation from the month's start to its end, each with its contracts. `opening` is MRR at `from`. " +
          "At most 120 months a call. From the insert-only MRR ledger, never from every contract. `customerId` " +
          "(an id or externalId): that customer's contracts only (404 for no customer of the account).",
      },
    })
    .input(mrrQuery)
    .output(mrrReport)
    .query(async ({ ctx, input }) => {
      const customerId = input.customerId && (await requireCustomer(ctx, input.customerId));
      return mrrOf(scopeOf(ctx), { ...input, customerId });
    }),

  collections: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/reports/collections",
        tags,
        summary: "Money collected: payments received and provider refunds, in a window",
        description:
          "In `currency`, over [from, to) (at most 366 days): `collected`, the payments recorded on invoices whose " +
          "date (when paid) falls in it, and apart `refunded`, what PROVIDER credit notes made in it refunded " +
          "through the payment provider; `net` is collected − refunded. Credits used, OFFSET and CREDITS notes move " +
          "no money and count in neither. Summed from the insert-only collections ledger, never from every invoice.",
      },
    })
    .input(collectionsQuery)
    .output(collectionsReport)
    .query(({ ctx, input }) => collectionsOf(scopeOf(ctx), input)),
});
