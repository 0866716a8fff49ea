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
 * How much one usage read of a batch takes at most (else its invoices read their own, as before): the days all the
 * batch's cycles cover (a month-end's cycles share theirs; a backlog's span years and read one by one), `$in` lists of
 * at most 200 values (the index proof's bound), and usage days (aliases × event names × days) as one usage read's. A
 * batch whose customers' aliases pass them is read in groups of customers that keep within them.
 */
export const BATCH_USAGE_LIMITS = { days: 93, values: 200, aliasDays: 20_000 };

/** What a batch's usage reads are answered from in memory (pass-reads.ts): a snapshot per group of its customers. */
export interface BatchUsage {
  rollups: RollupSnapshot[];
  measured: MeasurementSnapshot[];
}

export const NO_BATCH_USAGE: BatchUsage = { rollups: [], measured: [] };

/**
 * The usage every cycle of a billing batch will price, read together: the rollups of all their customers' aliases
 * and event names (one consistent read, two commands) and their measurements (one), over the days all the cycles
 * cover, instead of three commands per invoice — per group of customers whose aliases keep within BATCH_USAGE_LIMITS
 * (one group for a month-end of customers with a few aliases each). Each invoice still asks for its own usage; what
 * these reads cover is answered from them (usage stored after them is late usage, repriced as any:
 * READ_BEFORE_FINAL_MS).
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
  if (!fromDay || !toDayExclusive) return NO_BATCH_USAGE;
  const days = { fromDay, toDayExclusive };
  if (daysOf(days) > BATCH_USAGE_LIMITS.days || keys.size > BATCH_USAGE_LIMITS.values) return NO_BATCH_USAGE;
  const meterIds = [...keys];
  const [meters, aliases] = await Promise.all([
    repositories.meters.byKeys(accountId, meterIds),
    aliasesOf(repositories, accountId, [...customerIds]),
  ]);
  const names = [...new Set([...meters.values()].map(({ eventName }) => eventName))];
  const groups = customerGroups(aliases, names.length * daysOf(days));
  const rolledUp = names.length > 0 && groups.length > 0 && (await repositories.events.everyEventRolledUp());
  const read = await Promise.all(
    groups.map(({ customerIds, aliases }) =>
      Promise.all([
        rolledUp ? repositories.usageRollups.snapshot(accountId, { names, aliases, ...days }) : undefined,
        repositories.measurements.snapshot(accountId, { customerIds, meterIds, ...days }),
      ]),
    ),
  );
  return {
    rollups: read.flatMap(([rollups]) => (rollups ? [rollups] : [])),
    measured: read.flatMap(([, measured]) => (measured ? [measured] : [])),
  };
}

/**
 * The customers in groups whose aliases keep within BATCH_USAGE_LIMITS (`daysPerAlias`: the usage days one alias
 * reads, event names × days), in order; a customer whose aliases alone pass them is in none (its invoices read their
 * own usage). Example: 150 customers of 2 aliases each → groups of 100 and 50 (200 aliases at most a group).
 */
export function customerGroups(aliases: ReadonlyMap<string, readonly string[]>, daysPerAlias: number) {
  const { values, aliasDays } = BATCH_USAGE_LIMITS;
  const perGroup = Math.min(values, Math.floor(aliasDays / Math.max(1, daysPerAlias)));
  const groups: { customerIds: string[]; aliases: Set<string> }[] = [];
  for (const [customerId, own] of aliases) {
    if (own.length > perGroup) continue;
    let group = groups[groups.length - 1];
    if (!group || group.customerIds.length === values || new Set([...group.aliases, ...own]).size > perGroup) {
      group = { customerIds: [], aliases: new Set() };
      groups.push(group);
    }
    group.customerIds.push(customerId);
    for (const alias of own) group.aliases.add(alias);
  }
  return groups.map(({ customerIds, aliases }) => ({ customerIds, aliases: [...aliases] }));
}

/** Every alias each of these customers' events are sent under (see eventAliasesOf), by customer. */
async function aliasesOf(repositories: Repositories, accountId: string, customerIds: string[]) {
  const found = await Promise.all(
    customerIds.map(async (customerId) => {
      const customer = await repositories.customers.get(accountId, customerId);
      const aliases = customer ? await repositories.customers.eventAliasesOf(accountId, customer) : [];
      return [customerId, aliases] as const;
    }),
  );
  return new Map(found);
}
