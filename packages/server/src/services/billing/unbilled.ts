import type { ContractInMicros } from "../../domain/billing/contract.js";
import { billedPlan } from "../../domain/contracts/billed.js";
import { invoiceRecognition, type RecognitionLine, type Unbilled } from "../../domain/reports/revenue.js";
import type { CallScope } from "../call-scope.js";
import { readContractPage } from "../contract-reads.js";
import { usageByDay } from "../invoices/report-ledgers.js";
import { paymentTermsOf } from "./invoice-basis.js";
import { priceCycle } from "./price-cycle.js";

/**
 * The bound of one report's unbilled revenue: at most `contracts` live contracts of the account (of the customer)
 * are priced, in id order, and no new one once `timeBudgetMs` of pricing is spent; the report says `truncated` then.
 */
export const UNBILLED_LIMITS = { contracts: 50, timeBudgetMs: 5_000 };

/**
 * The unbilled revenue as of `now` (docs/decisions.md, "Unbilled revenue"): each open cycle (running at `now`, no
 * invoice stored for it, not even a draft) of the account's live contracts in `currency`, priced as a preview prices
 * it (usage up to `now`), as recognition lines: a ONE_TIME line on the cycle's first day, a USAGE line on the days
 * its usage happened up to `now` (evenly over those days when it has none to weigh by), every other line evenly over
 * the whole cycle (of which only the days begun by `now` are recognized: the caller cuts at `now`).
 */
export async function unbilledAsOf(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  currency: string,
  customerId: string | undefined,
  now: Date,
  limits = UNBILLED_LIMITS,
): Promise<Unbilled> {
  const page = await readContractPage(repositories, accountId, { limit: limits.contracts, customerId });
  const started = Date.now();
  const stop = new AbortController().signal;
  const lines: RecognitionLine[] = [];
  let contracts = 0;
  let truncated = page.hasMore;
  for (const stored of page.items as ContractInMicros[]) {
    if (Date.now() - started > limits.timeBudgetMs) {
      truncated = true;
      break;
    }
    contracts += 1;
    if (stored.currency !== currency) continue;
    const { contract, invoices } = billedPlan(stored, now);
    if (!contract) continue;
    const open = invoices.filter((cycle) => cycle.start <= now && now < cycle.end);
    if (open.length === 0) continue;
    const paymentTerms = await paymentTermsOf(repositories, accountId, contract);
    for (const cycle of open) {
      if (await repositories.invoices.hasCycle(accountId, contract.id, cycle.key)) continue;
      const priced = await priceCycle(repositories, accountId, contract, cycle, {
        paymentTerms,
        issuedAt: now,
        credits: "none",
        preview: { until: now, stop },
      });
      const upToNow = { start: cycle.start, end: new Date(Math.min(cycle.end.getTime(), now.getTime())) };
      // Usage lines on the days their usage happened up to now, as a finalized invoice's are recognized.
      const usageLines = priced.lineItems.filter((line) => line.kind === "USAGE");
      const byDay = await usageByDay({ repositories, accountId }, contract.customerId, usageLines, upToNow);
      const usage = invoiceRecognition(usageLines, upToNow, currency, (meter) => byDay.get(meter) ?? []);
      const others = invoiceRecognition(
        priced.lineItems.filter((line) => line.kind !== "USAGE"),
        cycle,
        currency,
      );
      lines.push(...usage, ...others);
    }
  }
  return { lines, contracts, truncated };
}
