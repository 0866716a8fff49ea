import { createHash } from "node:crypto";
import type { Db } from "mongodb";
import type { ChangedResource } from "../db/changed-since.js";
import { duplicateKeyIndexes, wonInsert } from "../db/duplicate-key.js";
import { routedById } from "../db/find-owned.js";
import { type AfterId, afterId, type MigrationProgress, pagedMigration, walkById } from "../db/paged-migration.js";
import { SETTLE_MARGIN_MS } from "../domain/reservations.js";
import { createReservationOpenings } from "./reservation-openings.js";

/**
 * A reservation as stored: the n-th slot of its chain, `_id` `<chain>_<n>`. A chain is one customer's reservations
 * against one limit in one cycle (the commitment's meters and the cycle's start, hashed): an insert wins slot n only
 * after its writer read slots 1…n−1 (their holds and their refs), so every admission, and its ref within the chain, is
 * decided by one unique insert (docs/decisions.md, "Reservations").
 */
export interface StoredReservation {
  _id: string;
  accountId: string;
  customerId: string;
  /** A usage reservation's meter (absent on a money reservation). */
  meterKey?: string;
  /** A money reservation's currency: `amountMicros` is money held against the credit balance in it. */
  currency?: string;
  /** The customerAlias a usage reservation's settlement's events are sent under. */
  customerAlias?: string;
  chain: string;
  n: number;
  amountMicros: number;
  ref: string;
  /** A usage reservation's cycle (a balance has none). */
  periodStart?: Date;
  periodEnd?: Date;
  expiresAt: Date;
  /** `expiresAt` + SETTLE_MARGIN_MS: until then an unsettled reservation holds its units. */
  holdUntil: Date;
  createdAt: Date;
}

/**
 * A settlement, in two inserts: the claim (`_id` the reservation's id: the one settlement, its amount) before the usage
 * events are written, and the record (`_id` `<id>/recorded`) after them, from which on the units are no longer held.
 */
export interface StoredSettlement {
  _id: string;
  accountId: string;
  reservationId: string;
  stage: "claimed" | "recorded";
  settledMicros: number;
  settledAt: Date;
  createdAt: Date;
}

/**
 * A reservation's ref, claimed once per account when it is first settled (`_id` `<account>/<ref>`): of two
 * reservations of one ref in two chains (two customers, meters, cycles or currencies), only the first settled records
 * usage under it. Within a chain the slot's insert decides the ref (reserveOnChain), so a reservation writes one
 * document. `chain` names the claimant's chain (one ref per chain: the same chain is the same reservation), `token`
 * its reservation (a random token on claims made at creation by an earlier version).
 */
export interface StoredRefClaim {
  _id: string;
  accountId: string;
  ref: string;
  chain: string;
  token: string;
  claimedAt: Date;
}

/**
 * A claim this young may belong to a request of an earlier version still admitting its slot (it claimed at creation):
 * it stands. An older one without a slot of its ref in its chain is the leftover of such a request that crashed between
 * its two inserts, and may be taken over.
 */
export const REF_CLAIM_SETTLE_MS = 60_000;
/** Reservations one step of the refs' migration claims the refs of: a bounded page, redone whole after a crash. */
export const RESERVATIONS_PER_REF_STEP = 1000;
const REF_MIGRATION_ID = "refs-claimed";
/** How far the claiming of refs stored before refs were claimed has come (`after`: the last slot, in `_id` order). */
type RefMigrationDoc = MigrationProgress<AfterId<string>>;
/** What the refs' migration reads of a slot: its ref's claim. */
type StoredRef = Pick<StoredReservation, "_id" | "accountId" | "ref" | "chain" | "createdAt">;

const refClaimId = (accountId: string, ref: string) => `${accountId}/${ref}`;

/** The chain a reservation's `_id` `<chain>_<n>` names (chains are 24 characters; any other id names none). */
const chainOfId = (id: string) => id.slice(0, CHAIN_LENGTH);
const CHAIN_LENGTH = 24;

/** The chain of a customer's reservations against one limit of one cycle. */
export function chainOf(accountId: string, customerId: string, meterKeys: readonly string[], cycleStart: Date) {
  const key = JSON.stringify([accountId, customerId, [...meterKeys].sort(), cycleStart.toISOString()]);
  return createHash("sha256").update(key).digest("base64url").slice(0, CHAIN_LENGTH);
}

const recordedId = (reservationId: string) => `${reservationId}/recorded`;

/** Reservations (their chains' slots) and their settlements: insert-only, every race decided by a unique `_id`. */
export function createReservationRepository(db: Db) {
  const slots = db.collection<StoredReservation>("reservations");
  const settlements = db.collection<StoredSettlement>("reservationSettlements");
  const refs = db.collection<StoredRefClaim>("reservationRefs");
  const migrations = db.collection<RefMigrationDoc>("reservation_migrations");
  const refMigration = pagedMigration(migrations, REF_MIGRATION_ID, { remembersDone: true });
  const openings = createReservationOpenings(db);

  /** Whether a claim found in place of this request's holds the ref: young, or its reservation is stored. */
  async function stands(claim: StoredRefClaim) {
    if (Date.now() - claim.claimedAt.getTime() < REF_CLAIM_SETTLE_MS) return true;
    return (await slots.findOne({ chain: claim.chain, ref: claim.ref }, { projection: { _id: 1 } })) !== null;
  }

  /**
   * The chains' slots not expired at `now`, soonest first, at most `scan`: by `holdUntil` (`expiresAt` plus the
   * settle margin, so the same order and bound), the index the chain's holds are read by.
   */
  const openSlotsOf = (chains: string[], now: Date, scan: number) =>
    chains.length === 0
      ? []
      : slots
          .find({ chain: { $in: chains }, holdUntil: { $gt: new Date(now.getTime() + SETTLE_MARGIN_MS) } })
          .sort({ holdUntil: 1 })
          .limit(scan)
          .toArray();

  return {
    async ensureIndexes() {
      // The chain's slots in order: its head, and those after a slot lost.
      await slots.createIndex({ chain: 1, n: 1 });
      // The chain's slots still holding units.
      await slots.createIndex({ chain: 1, holdUntil: 1 });
      // A ref names one reservation (and its usage events): in its chain, read with the holding slots before the slot's
      // insert; in the account, by its claim at the first settlement (reservationRefs; the old unique `(accountId,
      // ref)` goes with claimStoredRefs). A stale claim's reservation is looked up here.
      await slots.createIndex({ chain: 1, ref: 1 });
      // The webhook sweep's reading of recent changes, and of recent expiries.
      await slots.createIndex({ createdAt: 1 });
      await slots.createIndex({ expiresAt: 1 });
      // A customer's reservations not yet expired, soonest first: its stream's open reservations until the openings'
      // migration is done (then by its chains: reservation-openings.ts).
      await slots.createIndex({ accountId: 1, customerId: 1, expiresAt: 1 });
      await settlements.createIndex({ stage: 1, createdAt: 1 });
      await openings.ensureIndexes();
      // A database without reservations has no refs to claim: its migration is done from the start.
      if (!(await slots.findOne({}, { sort: { _id: 1 }, projection: { _id: 1 } }))) await refMigration.markDone();
    },

    /**
     * Claims the account's ref for this reservation's settlement: true when it holds the ref (now or already: a claim
     * of its chain is its own), false when another chain's reservation does. A leftover claim is removed, exactly it,
     * and taken over.
     */
    async claimRef(slot: Pick<StoredReservation, "_id" | "accountId" | "ref" | "chain">): Promise<boolean> {
      const { accountId, ref, chain } = slot;
      const _id = refClaimId(accountId, ref);
      for (;;) {
        if (await wonInsert(refs.insertOne({ _id, accountId, ref, chain, token: slot._id, claimedAt: new Date() })))
          return true;
        const held = await refs.findOne({ _id });
        if (!held) continue; // removed meanwhile as a leftover: try again
        if (held.chain === chain) return true;
        if (await stands(held)) return false;
        await refs.deleteOne({ _id, token: held.token });
      }
    },

    /**
     * One step of the migration of databases from before refs were claimed: claims the refs of the next
     * RESERVATIONS_PER_REF_STEP slots in `_id` order (a claim already there is kept), then the progress; once none is
     * left, drops the old unique `(accountId, ref)` index (which kept refs unique meanwhile, so the slots can be
     * sharded by chain) and marks it done. Returns how many slots it read (0: done). Bounded and resumable
     * (db/paged-migration.ts).
     */
    async claimStoredRefs(): Promise<number> {
      const claimRefs = async (page: StoredRef[]) => {
        const claims = page.map(({ _id, accountId, ref, chain, createdAt }) => ({
          _id: refClaimId(accountId, ref),
          ...{ accountId, ref, chain, token: _id, claimedAt: createdAt },
        }));
        await refs.insertMany(claims, { ordered: false }).catch(duplicateKeyIndexes);
      };
      const storedAfter = (after: string | undefined) =>
        slots.find(afterId(after)).project<StoredRef>({ accountId: 1, ref: 1, chain: 1, createdAt: 1 });
      const dropOldIndex = () => slots.dropIndex("accountId_1_ref_1").catch(() => undefined);
      return refMigration.step(walkById(storedAfter, RESERVATIONS_PER_REF_STEP, claimRefs), dropOldIndex);
    },

    /** The chain's last slot number (0: none yet). */
    async head(chain: string): Promise<number> {
      const last = await slots
        .find({ chain }, { projection: { n: 1 } })
        .sort({ n: -1 })
        .limit(1)
        .next();
      return last?.n ?? 0;
    },

    /**
     * The chain's slots still holding units at `now` (settled or not), with every slot of `ref` (held or not) in one
     * read; only the slots of `ref` when the holds are not counted.
     */
    holdingOrOfRef: (chain: string, now: Date, ref: string, { holds }: { holds: boolean }) =>
      holds
        ? slots.find({ chain, $or: [{ holdUntil: { $gt: now } }, { ref }] }).toArray()
        : slots.find({ chain, ref }).limit(1).toArray(),

    /** The chain's slots after slot `n`, in order: what a lost insert missed. */
    after: (chain: string, n: number) =>
      slots
        .find({ chain, n: { $gt: n } })
        .sort({ n: 1 })
        .toArray(),

    /**
     * The customer's open reservations at `now` (not expired, no settlement's claim), soonest to expire first: the
     * first `limit` among the next `scan` to expire (a bounded read, however many were settled early).
     */
    async openOf(accountId: string, customerId: string, now: Date, { limit, scan }: { limit: number; scan: number }) {
      const unexpired = (await openings.complete())
        ? await openSlotsOf(await openings.chainsOf(accountId, customerId, now), now, scan)
        : await slots
            .find({ accountId, customerId, expiresAt: { $gt: now } })
            .sort({ expiresAt: 1 })
            .limit(scan)
            .toArray();
      if (unexpired.length === 0) return [];
      const ids = unexpired.map((slot) => slot._id);
      const claimed = await settlements.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray();
      const settled = new Set(claimed.map((doc) => doc._id));
      return unexpired.filter((slot) => !settled.has(slot._id)).slice(0, limit);
    },

    /** Which of these reservations have their settlement's usage recorded. */
    async recorded(reservationIds: string[]): Promise<Set<string>> {
      if (reservationIds.length === 0) return new Set();
      const docs = await settlements
        .find({ _id: { $in: reservationIds.map(recordedId) } }, { projection: { reservationId: 1 } })
        .toArray();
      return new Set(docs.map((doc) => doc.reservationId));
    },

    /**
     * Inserts a slot: false when a unique index held its key (the slot; until claimStoredRefs is done, also a ref
     * stored before refs were claimed).
     */
    async insert(slot: StoredReservation): Promise<boolean> {
      await openings.note(slot);
      return wonInsert(slots.insertOne(slot));
    },

    /** The upkeep worker's step noting the openings of slots stored before openings existed (0: done). */
    noteStoredOpenings: () => openings.noteStored(),

    /** The account's reservation and its settlement's claim, if any. */
    async get(accountId: string, id: string) {
      // By `_id` alone (an exact point read; on a sharded cluster with the chain it names: routedById), the account
      // checked after.
      const slot = await slots.findOne(routedById(slots, { _id: id }, { chain: chainOfId(id) }));
      if (!slot || slot.accountId !== accountId) return undefined;
      const claim = (await settlements.findOne({ _id: id })) ?? undefined;
      return { slot, claim };
    },

    /** Claims the settlement (one per reservation): the claim that holds, this one or an earlier one. */
    async claim(slot: StoredReservation, settledMicros: number, settledAt: Date): Promise<StoredSettlement> {
      const doc: StoredSettlement = {
        _id: slot._id,
        accountId: slot.accountId,
        reservationId: slot._id,
        stage: "claimed",
        settledMicros,
        settledAt,
        createdAt: new Date(),
      };
      if (await wonInsert(settlements.insertOne(doc))) return doc;
      const held = await settlements.findOne({ _id: slot._id });
      if (!held) throw new Error(`settlement claim of ${slot._id} lost to a claim that cannot be read`);
      return held;
    },

    /** Records that the claim's usage is written: its units are held no more. Idempotent. */
    async record(claim: StoredSettlement): Promise<void> {
      const doc: StoredSettlement = { ...claim, _id: recordedId(claim.reservationId), stage: "recorded" };
      await wonInsert(settlements.insertOne({ ...doc, createdAt: new Date() }));
    },

    /** Reservations stored at or after `since`, across accounts, oldest first: for the webhook sweep. */
    async createdSince(since: Date, limit: number): Promise<ChangedResource<StoredReservation>[]> {
      const docs = await slots
        .find({ createdAt: { $gte: since } })
        .sort({ createdAt: 1 })
        .limit(limit)
        .toArray();
      return docs.map((doc) => ({ accountId: doc.accountId, at: doc.createdAt, resource: doc }));
    },

    /**
     * Reservations that expired in [since, until] unsettled (no settlement's claim), oldest expiry first: for the
     * webhook sweep's `reservation.expired`. `limit` counts the expiries read, settled or not.
     */
    async expiredSince(
      since: Date,
      until: Date,
      limit: number,
    ): Promise<(ChangedResource<StoredReservation> & { settled: boolean })[]> {
      const docs = await slots
        .find({ expiresAt: { $gte: since, $lte: until } })
        .sort({ expiresAt: 1 })
        .limit(limit)
        .toArray();
      const ids = docs.map((doc) => doc._id);
      const claimed =
        ids.length === 0
          ? new Set<string>()
          : new Set(
              (await settlements.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map(
                (doc) => doc._id,
              ),
            );
      // A settled one is a change with no event: the batch still counts it, and the sweep's mark passes it.
      return docs.map((doc) => ({
        accountId: doc.accountId,
        at: doc.expiresAt,
        resource: doc,
        settled: claimed.has(doc._id),
      }));
    },

    /** Settlements recorded at or after `since`, with their reservations, oldest first: for the webhook sweep. */
    async settledSince(since: Date, limit: number) {
      const docs = await settlements
        .find({ stage: "recorded", createdAt: { $gte: since } })
        .sort({ createdAt: 1 })
        .limit(limit)
        .toArray();
      const recorded = docs;
      const ids = recorded.map((doc) => doc.reservationId);
      const chains = [...new Set(ids.map(chainOfId))];
      const slotDocs =
        ids.length === 0
          ? []
          : await slots.find(routedById(slots, { _id: { $in: ids } }, { chain: { $in: chains } })).toArray();
      const slotOf = new Map(slotDocs.map((slot) => [slot._id, slot]));
      return recorded.flatMap((claim) => {
        const slot = slotOf.get(claim.reservationId);
        return slot ? [{ accountId: claim.accountId, at: claim.createdAt, resource: { slot, claim } }] : [];
      });
    },
  };
}
