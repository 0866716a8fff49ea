import { receivablesQuery, receivablesReport } from "@billing/shared";
import { accountProcedure } from "../procedures.js";
import { scopeOf } from "../services/call-scope.js";
import { receivablesReport as agingReport } from "../services/reports/receivables.js";
import { router } from "../trpc.js";

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
});
