import { type ChangeEvent, creditEventOf } from "../domain/webhooks/events.js";
import type { Repositories } from "../repositories/index.js";
import { recordChange } from "./webhook-events.js";

/** A change found by the sweep: its account, when it happened, and its event (none: a change with no event). */
interface Change {
  accountId: string;
  at: Date;
  event: ChangeEvent | undefined;
}

/** Where the sweep reads recent changes: each resource that has events, through its repository. */
function changeSources(repositories: Repositories): Record<string, (since: Date, limit: number) => Promise<Change[]>> {
  const { customers, meters, contracts, credits, invoices } = repositories;
  return {
    customers: async (since, limit) =>
      (await customers.changedSince(since, limit)).map(({ accountId, at, customer }) => ({
        accountId,
        at,
        event: {
          type: customer.createdAt === customer.updatedAt ? "customer.created" : "customer.updated",
          data: customer,
        },
      })),
    meters: async (since, limit) =>
      (await meters.changedSince(since, limit)).map(({ accountId, at, meter }) => ({
        accountId,
        at,
        event: { type: meter.createdAt === meter.updatedAt ? "meter.created" : "meter.updated", data: meter },
      })),
    contractCreations: async (since, limit) =>
      (await contracts.changedSince("createdAt", since, limit)).map(({ accountId, at, contract }) => ({
        accountId,
        at,
        event: { type: "contract.created", data: contract },
      })),
    contractDeletions: async (since, limit) =>
      (await contracts.changedSince("deletedAt", since, limit)).map(({ accountId, at, contract }) => ({
        accountId,
        at,
        event: { type: "contract.deleted", data: contract },
      })),
    creditEntries: async (since, limit) =>
      (await credits.createdSince(since, limit)).map(({ accountId, at, entry }) => ({
        accountId,
        at,
        event: creditEventOf(entry),
      })),
    invoices: async (since, limit) =>
      (await invoices.createdSince(since, limit)).map(({ accountId, at, invoice }) => ({
        accountId,
        at,
        event: { type: "invoice.created", data: invoice },
      })),
  };
}

/**
 * How far back of its mark each sweep reads again: a change is timestamped before it is written, so one written late
 * (a slow request) can carry a time the previous sweep had already passed.
 */
export const SWEEP_OVERLAP_MS = 5 * 60_000;
/** Changes read per source and sweep; a backlog (after a long stop) is worked through over several sweeps. */
const SWEEP_BATCH = 500;

/**
 * Records the message of every recent change that has none, or whose deliveries were not all opened: the request
 * that made the change stopped (a crash) or failed to record it. Each source is read from its mark (where the last
 * sweep got to, less the overlap), so a stop of any length loses nothing; idempotent, safe on every instance at once.
 */
export async function sweepChanges(repositories: Repositories, now = new Date()): Promise<void> {
  for (const [source, read] of Object.entries(changeSources(repositories))) {
    const mark = (await repositories.webhookMessages.sweepMark(source)) ?? now;
    const changes = await read(new Date(mark.getTime() - SWEEP_OVERLAP_MS), SWEEP_BATCH);
    for (const { accountId, event } of changes) if (event) await recordChange(repositories, accountId, event);
    // A full batch may leave changes after its last one: the next sweep starts there.
    const last = changes.at(-1);
    const next = changes.length === SWEEP_BATCH && last ? new Date(last.at.getTime() + SWEEP_OVERLAP_MS) : now;
    await repositories.webhookMessages.setSweepMark(source, next);
  }
}
