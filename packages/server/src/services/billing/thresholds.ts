import { billingNow, onAccountClock } from "../../billing-clock.js";
import type { ContractInMicros } from "../../domain/billing/contract.js";
import type { PlannedInvoice } from "../../domain/billing/items.js";
import {
  accruedMicros,
  billedMicros,
  crossesNewThreshold,
  MAX_THRESHOLD_INVOICES,
  thresholdKey,
} from "../../domain/billing/thresholds.js";
import { billedPlan } from "../../domain/contracts/billed.js";
import type { Logger } from "../../logger.js";
import type { Repositories } from "../../repositories/index.js";
import type { UsageChange } from "../alerts/evaluate.js";
import type { CallScope } from "../call-scope.js";
import { readContractPage, readCustomerContracts } from "../contract-reads.js";
import { finalizeInvoice } from "../invoices/finalize.js";
import { publishChange } from "../webhook-events.js";
import { paymentTermsOf } from "./invoice-basis.js";
import { invoiceIdFor } from "./invoice-id.js";
import { priceCycle } from "./price-cycle.js";
import { thresholdInvoicesOf } from "./threshold-invoices.js";

/** The cycles of a contract that accrue at `at`: billed in arrears, running then. */
const accruingCycles = (
  contract: ContractInMicros,
  at: Date,
): { contract: ContractInMicros; cycles: PlannedInvoice[] } => {
  const { contract: billed, invoices } = billedPlan(contract, at);
  if (!billed) return { contract, cycles: [] };
  return {
    contract: billed,
    cycles: invoices.filter((cycle) => !cycle.prepaid && cycle.start <= at && at < cycle.end),
  };
};

/**
 * Threshold billing of one running cycle at `at` (docs/decisions.md, "Threshold billing"): priced as a preview prices
 * it (usage up to `at`'s day, tax apart), less what its threshold invoices 1…n−1 billed; when what it accrued reaches
 * a threshold their total had not, the n-th threshold invoice is stored under its derived id (the one insert that
 * decides it: a concurrent evaluation, on this instance or another, finds it taken and stops), finalized at once and
 * announced (`invoice.created`, `invoice.threshold_reached`). The id of the invoice made, if any.
 */
async function billCycle(call: CallScope, contract: ContractInMicros, cycle: PlannedInvoice, at: Date) {
  const { repositories, accountId } = call;
  const thresholds = await thresholdInvoicesOf(repositories, accountId, contract, cycle);
  if (thresholds.count >= MAX_THRESHOLD_INVOICES) return undefined;
  const paymentTerms = await paymentTermsOf(repositories, accountId, contract);
  const draft = await priceCycle(repositories, accountId, contract, cycle, {
    paymentTerms,
    issuedAt: at,
    credits: "none",
    preview: { until: at, stop: new AbortController().signal },
    thresholds,
  });
  const thresholdsMicros = contract.billingThresholdsMicros ?? [];
  if (!crossesNewThreshold(thresholdsMicros, accruedMicros(draft.lineItems), billedMicros(thresholds.billed)))
    return undefined;
  const key = thresholdKey(cycle.key, thresholds.count + 1);
  const id = invoiceIdFor(accountId, contract.id, key);
  const meterKeys = [...new Set(cycle.charges.flatMap(({ item }) => item.meters))];
  const { created, stored } = await repositories.invoices.insert(
    accountId,
    { ...draft, name: `${draft.name} (threshold)` },
    { id, cycleKey: key, meterKeys, finalizesAt: at, pricedAt: at },
  );
  if (!created) return undefined;
  const finalized = await finalizeInvoice(call, id.toHexString(), { at, ifDraft: true, known: stored });
  await publishChange(repositories, accountId, call.log, { type: "invoice.created", data: finalized.invoice });
  await publishChange(repositories, accountId, call.log, {
    type: "invoice.threshold_reached",
    data: finalized.invoice,
  });
  return finalized.invoice.id;
}

/**
 * Threshold billing of a customer's contracts with `billingThresholds` at `at` (their running cycles): what
 * ingestion calls after it stored usage, off the request path. A customer whose contracts have none costs one read
 * of its contracts. The ids of the threshold invoices made.
 */
export async function billCustomerThresholds(call: CallScope, customerId: string, at: Date): Promise<string[]> {
  const made: string[] = [];
  const contracts = await readCustomerContracts(call.repositories, call.accountId, customerId);
  for (const stored of contracts) {
    if (!stored.billingThresholdsMicros?.length) continue;
    const { contract, cycles } = accruingCycles(stored, at);
    for (const cycle of cycles) {
      const id = await billCycle(call, contract, cycle, at);
      if (id) made.push(id);
    }
  }
  return made;
}

/** The customers a change of usage concerns: by id, or by their aliases. */
async function customersOf(repositories: Repositories, change: UsageChange): Promise<string[]> {
  if (change.kind === "measurement") return [change.customerId];
  const { accountId, aliases } = change;
  const ids = await Promise.all(aliases.map((alias) => repositories.customers.attributedTo(accountId, alias)));
  return [...new Set(ids.filter((id): id is string => Boolean(id)))];
}

/**
 * Threshold billing after ingestion (the alert trigger's `after`, app.ts): the customers of the change, on the
 * account's clock as ingestion read it; nothing (no command) for an account without thresholds. Logs instead of
 * throwing: the customer's next change of usage, or the upkeep worker's catch-up (sweepThresholds), looks again.
 */
export async function billThresholdsAfter(repositories: Repositories, change: UsageChange, log: Logger) {
  const { accountId, testClockAt } = change;
  if (change.thresholds === false) return;
  try {
    await onAccountClock(accountId, testClockAt, async () => {
      const at = billingNow(accountId);
      for (const customerId of await customersOf(repositories, change))
        await billCustomerThresholds({ repositories, accountId, log }, customerId, at);
    });
  } catch (error) {
    log.error({ err: error, accountId }, "threshold billing failed; the customer's next usage looks again");
  }
}

/** Contracts one account's catch-up looks at per upkeep tick: its bounded share of a tick. */
export const THRESHOLD_SWEEP_CONTRACTS = 50;

/** Where each account's catch-up stopped on this instance (a crash restarts it from the first contract). */
const sweptTo = new Map<string, string>();

/**
 * The catch-up of threshold billing (the upkeep worker's walk, threshold-catch-up.ts, on every instance whether or
 * not the billing scheduler runs; a test clock's advances): an evaluation lost after its
 * ingestion (a crash, a full queue, a call that read the account before its first contract with thresholds) is made
 * within a walk of the account's contracts, `THRESHOLD_SWEEP_CONTRACTS` per tick, each running cycle of a contract
 * with thresholds evaluated at `at` as after ingestion (the same insert decides it, so a concurrent evaluation, here or
 * on another instance, bills it once). Called only for accounts whose flag says they bill thresholds. Never throws.
 * The ids of the threshold invoices made.
 */
export async function sweepThresholds(call: CallScope, at: Date): Promise<string[]> {
  const { accountId, repositories, log } = call;
  const made: string[] = [];
  try {
    const cursor = sweptTo.get(accountId);
    const page = await readContractPage(repositories, accountId, { limit: THRESHOLD_SWEEP_CONTRACTS, cursor });
    for (const stored of page.items) {
      if (!stored.billingThresholdsMicros?.length) continue;
      const { contract, cycles } = accruingCycles(stored, at);
      for (const cycle of cycles) {
        const id = await billCycle(call, contract, cycle, at);
        if (id) made.push(id);
      }
    }
    if (page.hasMore && page.nextCursor) sweptTo.set(accountId, page.nextCursor);
    else sweptTo.delete(accountId);
  } catch (error) {
    log.error(
      { err: error, accountId },
      "threshold catch-up failed; the account's contracts are swept again next tick",
    );
  }
  return made;
}
