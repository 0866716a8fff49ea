import type { Db, Filter } from "mongodb";
import { duplicateKeyIndexes, isDuplicateKeyError } from "../db/duplicate-key.js";
import { type AfterId, afterId, type MigrationProgress, pagedMigration, walkById } from "../db/paged-migration.js";

/**
 * A pointer from a customer to one of its chains (`reservationOpenings`), per UTC day its reservations expire on:
 * `_id` `<chain>/<day>`, written once (before the first such slot), never changed. A customer's stream reads its
 * chains of today and later by its own key (`{ accountId, customerId }`, one shard on a cluster), then their slots by
 * chain (routed): its open reservations without a query that no shard key of the slots carries (docs/decisions.md,
 * "Reservations: a customer's open chains").
 */
interface OpeningDoc {
  _id: string;
  accountId: string;
  customerId: string;
  chain: string;
  /** Midnight (UTC) of the day the chain's reservations noted here expire on. */
  day: Date;
}

/** The slot fields an opening is made of. */
interface OpenedSlot {
  _id: string;
  accountId: string;
  customerId: string;
  chain: string;
  expiresAt: Date;
}

/** Slots one step of the openings' migration reads: a bounded page, redone whole (writing nothing) after a crash. */
const SLOTS_PER_OPENING_STEP = 1000;
const MIGRATION_ID = "openings-noted";
/** Openings this instance wrote or met (never removed): a later slot of the chain and day skips its insert. */
const KNOWN_OPENINGS = 10_000;

const DAY_MS = 86_400_000;
const dayOf = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
const openingOf = ({ accountId, customerId, chain, expiresAt }: OpenedSlot): OpeningDoc => {
  const day = dayOf(expiresAt);
  return { _id: `${chain}/${day.toISOString().slice(0, 10)}`, accountId, customerId, chain, day };
};

/**
 * The reservations repository's pointers from customers to chains, and the migration that writes them for slots
 * stored before (the upkeep worker's step). Until it is done, the stream reads the customer's slots as before.
 */
export function createReservationOpenings(db: Db) {
  const openings = db.collection<OpeningDoc>("reservationOpenings");
  const slots = db.collection<OpenedSlot>("reservations");
  const migrations = db.collection<MigrationProgress<AfterId<string>>>("reservation_migrations");
  const migration = pagedMigration(migrations, MIGRATION_ID, { remembersDone: true });
  const known = new Set<string>();
  let migrated = false;
  /** Whether every slot stored before openings existed has its opening (read until it is, then kept). */
  const complete = async () => {
    migrated ||= migration.doneSeen || (await migration.done());
    return migrated;
  };
  const noteOpenings = async (page: OpenedSlot[]) => {
    const docs = [...new Map(page.map((slot) => [openingOf(slot)._id, openingOf(slot)])).values()];
    await openings.insertMany(docs, { ordered: false }).catch(duplicateKeyIndexes);
  };
  const remember = (id: string) => {
    if (known.size >= KNOWN_OPENINGS) known.clear();
    known.add(id);
  };

  return {
    async ensureIndexes() {
      // A customer's chains with reservations expiring from a day on: its stream's first read.
      await openings.createIndex({ accountId: 1, customerId: 1, day: 1 });
      // A database without reservations has no openings to note: its migration is done from the start.
      if (!(await slots.findOne({}, { sort: { _id: 1 }, projection: { _id: 1 } }))) await migration.markDone();
    },

    /** Notes the slot's chain and day, once: before its insert, so that a stored slot always has its opening. */
    async note(slot: OpenedSlot): Promise<void> {
      const opening = openingOf(slot);
      if (known.has(opening._id)) return;
      try {
        await openings.insertOne(opening);
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
      remember(opening._id);
    },

    complete,

    /** The customer's chains with a reservation expiring on `now`'s day or later. */
    async chainsOf(accountId: string, customerId: string, now: Date): Promise<string[]> {
      const docs = await openings
        .find({ accountId, customerId, day: { $gte: dayOf(now) } }, { projection: { chain: 1 } })
        .toArray();
      return [...new Set(docs.map(({ chain }) => chain))];
    },

    /**
     * One step of the migration of databases from before openings: notes the openings of the next
     * SLOTS_PER_OPENING_STEP slots in `_id` order (one already there is kept), then the progress; marks it done once
     * none is left. Returns how many slots it read (0: done). Bounded and resumable.
     */
    noteStored(): Promise<number> {
      const read = (after: string | undefined) =>
        slots
          .find(afterId(after) as Filter<OpenedSlot>)
          .project<OpenedSlot>({ accountId: 1, customerId: 1, chain: 1, expiresAt: 1 });
      return migration.step(walkById(read, SLOTS_PER_OPENING_STEP, noteOpenings));
    },
  };
}
