import type { ContractInMicros } from "../../domain/billing/contract.js";
import { usageWindows } from "../../domain/billing/invoice.js";
import type { PlannedInvoice } from "../../domain/billing/items.js";
import { dealTermsAt } from "../../domain/contracts/deal-terms.js";
import { daysOf, usageToRead } from "../../domain/usage/reads.js";
import type { Repositories } from "../../repositories/index.js";
import type { MeasurementSnapshot } from "../../repositories/measurements.js";
import type { RollupSnapshot } from "../../repositories/usage-rollup-docs.js";

/** A contract's cycle a billing batch is about to price. */
export interface CycleToPrice {
  contract: ContractInMicros;
  cycle: PlannedInvoice;
}

/**
 * How much a batch's usage read takes at most (else each invoice reads its own, as before): the days all its cycles
 * cover (a month-end's cycles share theirs; a backlog's span years and read one by one), `$in` lists of at most 200
 * values (the index proof's bound), and usage days (aliases × event names × days) as one usage read's.
 */
export const BATCH_USAGE_LIMITS = { days: 93, values: 200, aliasDays: 20_000 };

/** What a batch's usage reads are answered from in memory (pass-reads.ts): each absent when not read together. */
export interface BatchUsage {
  rollups?: RollupSnapshot | undefined;
  measured?: MeasurementSnapshot | undefined;
}

/**
 * The usage every cycle of a billing batch will price, read together: the rollups of all their customers' aliases
 * and event names (one consistent read, two commands) and their measurements (one), over the days all the cycles
 * cover, instead of three commands per invoice. Each invoice still asks for its own usage; what these reads cover is
 * answered from them (usage stored after them is late usage, repriced as any: READ_BEFORE_FINAL_MS).
 */
export async function readBatchUsage(
  repositories: Repositories,
  accountId: string,
  cycles: readonly CycleToPrice[],
): Promise<BatchUsage> {
  const customerIds = new Set<string>();
  const keys = new Set<string>();
  let fromDay: string | undefined;
  let toDayExclusive: string | undefined;
  for (const { contract, cycle } of cycles) {
    const toRead = usageToRead(usageWindows(dealTermsAt(contract, cycle.start), cycle).flat());
    if (!toRead) continue;
    customerIds.add(contract.customerId);
    for (const meter of toRead.meters) keys.add(meter.trim());
    if (!fromDay || toRead.fromDay < fromDay) fromDay = toRead.fromDay;
    if (!toDayExclusive || toRead.toDayExclusive > toDayExclusive) toDayExclusive = toRead.toDayExclusive;
  }
  if (!fromDay || !toDayExclusive) return {};
  const days = { fromDay, toDayExclusive };
  const { values, aliasDays } = BATCH_USAGE_LIMITS;
  if (daysOf(days) > BATCH_USAGE_LIMITS.days || customerIds.size > values || keys.size > values) return {};
  const meterIds = [...keys];
  const [meters, aliases] = await Promise.all([
    repositories.meters.byKeys(accountId, meterIds),
    aliasesOf(repositories, accountId, [...customerIds]),
  ]);
  const names = [...new Set([...meters.values()].map(({ eventName }) => eventName))];
  const rolledUp =
    names.length > 0 &&
    aliases.length <= values &&
    aliases.length * names.length * daysOf(days) <= aliasDays &&
    (await repositories.events.everyEventRolledUp());
  const [rollups, measured] = await Promise.all([
    rolledUp ? repositories.usageRollups.snapshot(accountId, { names, aliases, ...days }) : undefined,
    repositories.measurements.snapshot(accountId, { customerIds: [...customerIds], meterIds, ...days }),
  ]);
  return { rollups, measured };
}

/** Every alias these customers' events are sent under (see eventAliasesOf). */
async function aliasesOf(repositories: Repositories, accountId: string, customerIds: string[]) {
  const found = await Promise.all(
    customerIds.map(async (customerId) => {
      const customer = await repositories.customers.get(accountId, customerId);
      return customer ? repositories.customers.eventAliasesOf(accountId, customer) : [];
    }),
  );
  return [...new Set(found.flat())];
}
