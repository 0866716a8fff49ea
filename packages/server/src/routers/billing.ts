import { billingRunRequest, billingRunResponse } from "@billing/shared";
import { billingNow } from "../billing-clock.js";
import { accountProcedure } from "../procedures.js";
import { runBilling } from "../services/billing/run.js";
import { router } from "../trpc.js";

export const billingRouter = router({
  run: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/billing-runs",
        tags: ["billing"],
        summary: "Generate every invoice due up to `at`",
        description:
          "Idempotent: each contract cycle is invoiced once, however often or concurrently runs happen. An arrears " +
          "cycle is invoiced by the first run at or after its end plus the grace period (BILLING_GRACE_PERIOD, " +
          "default one hour), so late events still count.",
      },
      finance: true,
    })
    .input(billingRunRequest)
    .output(billingRunResponse)
    .mutation(async ({ ctx, input }) => ({
      run: await ctx.metrics.timed("billing_run", () =>
        runBilling(
          ctx.repositories,
          ctx.accountId,
          input.at ? new Date(input.at) : billingNow(ctx.accountId),
          ctx.trace.log,
          {
            graceMs: ctx.billingGraceMs,
            draftMs: ctx.invoiceDraftMs,
          },
        ),
      ),
    })),
});
