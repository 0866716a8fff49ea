import { dayKey } from "../../domain/billing/cycles.js";
import type { InvoiceChange, InvoiceLife } from "../../domain/invoices/life.js";
import { asMicros } from "../../domain/money/micros.js";
import { collectionOf } from "../../domain/reports/collections.js";
import { receivableMomentOf, receivableOf } from "../../domain/reports/receivables.js";
import {
  creditNoteReversal,
  invoiceRecognition,
  isRecognizedByUsage,
  type RecognitionLine,
  type RecognizedLine,
  revenueMicrosOf,
  type UsageOfDay,
} from "../../domain/reports/revenue.js";
import type { Repositories } from "../../repositories/index.js";
import type { StoredInvoice, StoredPricing } from "../../repositories/invoices.js";
import type { ReceivableEntry } from "../../repositories/receivable-entries.js";
import type { StoredSchedule } from "../../repositories/revenue-schedules.js";
import type { CallScope } from "../call-scope.js";
import { usageReader } from "../usage.js";

/**
 * Writes the receivables ledger's entry of one change (repositories/receivable-entries.ts): what the change moved the
 * invoice's amount owed by, `before` → `after`. A change that moves nothing (a draft's void) writes none. Called
 * before the invoice takes the change, keyed by the change's place, so it is written exactly once.
 */
export async function recordReceivable(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  invoice: StoredInvoice["invoice"],
  change: InvoiceChange<StoredPricing> & { n: number },
  before: InvoiceLife<StoredPricing>,
  after: InvoiceLife<StoredPricing>,
): Promise<void> {
  const micros = receivableOf(after) - receivableOf(before);
  if (micros === 0) return;
  await repositories.receivableEntries.record({
    accountId,
    invoiceId: invoice.id,
    n: change.n,
    customerId: invoice.customerId,
    currency: after.priced.currency ?? invoice.currency,
    dueDate: after.priced.dueDate ?? new Date(invoice.dueDate),
    at: receivableMomentOf(change, after.finalizedAt),
    micros: asMicros(micros),
  });
}

/**
 * Writes the collections ledger's entry of one change (repositories/collection-entries.ts): a payment, at the date it
 * was paid, for its amount; a credit note that refunds money through a provider, when made, for what it refunds.
 * Credits, OFFSET and CREDITS notes and voids move no money: they write none. Keyed by the change's place: once.
 */
export async function recordCollection(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  invoice: StoredInvoice["invoice"],
  change: InvoiceChange<StoredPricing> & { n: number },
  after: InvoiceLife<StoredPricing>,
): Promise<void> {
  const moved = collectionOf(change);
  if (!moved) return;
  await repositories.collectionEntries.record({
    accountId,
    invoiceId: invoice.id,
    n: change.n,
    customerId: invoice.customerId,
    currency: after.priced.currency ?? invoice.currency,
    ...moved,
  });
}

/**
 * Writes the revenue ledger's schedule of one change (repositories/revenue-schedules.ts), before the invoice takes
 * it, keyed by its place: a finalization's lines over the invoice's cycle (its usage lines on the days of their
 * usage, read from the rollups once, here: usageByDay); an OFFSET credit note's reversal on its
 * day; a void of a finalized invoice, the negation of every schedule the invoice had (a voided invoice recognizes
 * nothing, in any period). Payments and CREDITS notes move no revenue.
 */
export async function recordRevenue(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  invoice: StoredInvoice["invoice"],
  change: InvoiceChange<StoredPricing> & { n: number },
  before: InvoiceLife<StoredPricing>,
  after: InvoiceLife<StoredPricing>,
): Promise<void> {
  const currency = after.priced.currency ?? invoice.currency;
  const owner = { accountId, invoiceId: invoice.id, customerId: invoice.customerId, currency };
  const write = async (id: string, billedAt: Date, lines: RecognitionLine[]) => {
    if (lines.length === 0) return;
    const end = new Date(Math.max(...lines.map((line) => line.end.getTime())));
    await repositories.revenueSchedules.record({ ...owner, id, billedAt, end, lines });
  };
  const id = `${invoice.id}:${change.n}`;
  switch (change.kind) {
    case "FINALIZE":
    case "NUMBER": {
      const cycle = { start: new Date(invoice.billingCycle.startTime), end: new Date(invoice.billingCycle.endTime) };
      const usage = await usageByDay({ repositories, accountId }, invoice.customerId, after.priced.lineItems, cycle);
      const lines = invoiceRecognition(after.priced.lineItems, cycle, currency, (meter) => usage.get(meter) ?? []);
      return write(id, change.at, lines);
    }
    case "CREDIT_NOTE": {
      const revenue = revenueMicrosOf(after.priced.revenueBreakdown);
      const reversal = creditNoteReversal(change.offset, { revenue, total: after.totalMicros }, change.at, currency);
      return write(id, change.at, reversal);
    }
    case "VOID": {
      if (before.status !== "FINALIZED") return;
      for (const schedule of await repositories.revenueSchedules.ofInvoice(accountId, invoice.id)) {
        if (schedule.id.endsWith(":void")) continue;
        const negated = schedule.lines.map(({ days, ...line }) => ({
          ...line,
          micros: -line.micros,
          ...(days && { days: days.map(({ day, micros }) => ({ day, micros: -micros })) }),
        }));
        await write(`${schedule.id}:void`, schedule.billedAt, negated);
      }
      return;
    }
    case "PAYMENT":
      return;
  }
}

/**
 * The customer's usage per UTC day of the cycle of each meter the invoice's usage lines price: one read of them all
 * (services/usage.ts, from the rollups), none for an invoice without usage revenue. Also an open cycle's up to now
 * (services/billing/unbilled.ts).
 */
export async function usageByDay(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  customerId: string,
  lines: readonly RecognizedLine[],
  cycle: { start: Date; end: Date },
): Promise<Map<string, UsageOfDay[]>> {
  const meters = [...new Set(lines.filter(isRecognizedByUsage).map((line) => line.catalogProductId as string))];
  if (meters.length === 0) return new Map();
  const lastDay = new Date(cycle.end.getTime() - 1);
  const toDay = dayKey(new Date(Date.UTC(lastDay.getUTCFullYear(), lastDay.getUTCMonth(), lastDay.getUTCDate() + 1)));
  const spans = await usageReader(repositories, accountId, customerId).readMany(meters, dayKey(cycle.start), toDay);
  return new Map(meters.map((meter) => [meter, spans.get(meter)?.over().days ?? []]));
}

/**
 * Writes the MRR ledger's usage of an invoice's cycle (repositories/mrr-ledger.ts) when it is finalized: the revenue
 * of its USAGE lines (tax excluded), what the contract's usage adds to its MRR until its next cycle is finalized; a
 * void of a finalized invoice writes its cancellation. Keyed by the invoice: written once.
 */
export async function recordMrrUsage(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  invoice: StoredInvoice["invoice"],
  change: InvoiceChange<StoredPricing>,
  before: InvoiceLife<StoredPricing>,
  after: InvoiceLife<StoredPricing>,
): Promise<void> {
  const finalized = change.kind === "FINALIZE" || change.kind === "NUMBER";
  const voided = change.kind === "VOID" && before.status === "FINALIZED";
  if (!finalized && !voided) return;
  const lines = after.priced.lineItems.filter((line) => line.kind === "USAGE");
  const micros = lines.reduce((sum, line) => sum + revenueMicrosOf(line.revenueBreakdown), 0);
  if (finalized && micros === 0) return;
  await repositories.mrrLedger.recordUsage(accountId, after.priced.currency ?? invoice.currency, {
    contractId: invoice.contractId,
    invoiceId: invoice.id,
    cycleEnd: new Date(invoice.billingCycle.endTime),
    micros,
    voided,
  });
}

/**
 * The repositories with the three report ledgers' writes gathered rather than sent (a billing batch's finalizations:
 * changeInvoices), and `write` to send them, one insert per ledger, each entry still written once by its key.
 */
export function gatherReportEntries(repositories: Repositories, accountId: string) {
  const receivables: ReceivableEntry[] = [];
  const schedules: StoredSchedule[] = [];
  const usages: Parameters<Repositories["mrrLedger"]["recordUsages"]>[1] = [];
  return {
    repositories: {
      ...repositories,
      receivableEntries: {
        ...repositories.receivableEntries,
        record: async (entry: ReceivableEntry) => receivables.push(entry) > 0,
      },
      revenueSchedules: {
        ...repositories.revenueSchedules,
        record: async (schedule: StoredSchedule) => schedules.push(schedule) > 0,
      },
      mrrLedger: {
        ...repositories.mrrLedger,
        // The call's account: every entry gathered is its.
        recordUsage: async (_accountId: string, currency: string, usage: (typeof usages)[number]["usage"]) =>
          usages.push({ currency, usage }) > 0,
      },
    } satisfies Repositories,
    async write() {
      await Promise.all([
        repositories.receivableEntries.recordMany(receivables.splice(0)),
        repositories.revenueSchedules.recordMany(schedules.splice(0)),
        repositories.mrrLedger.recordUsages(accountId, usages.splice(0)),
      ]);
    },
  };
}
