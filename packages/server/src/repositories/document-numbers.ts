import type { Db } from "mongodb";
import { duplicateKeyIndexes, wonInsert, wonInserts } from "../db/duplicate-key.js";
import { routedById } from "../db/find-owned.js";
import type { LastOfEach } from "../db/last-of-each.js";
import { type AfterId, afterId, type MigrationProgress, pagedMigration, walkById } from "../db/paged-migration.js";
import type { Hooks } from "./hooks.js";

/** The sequences of numbered documents: invoices (`INV`, shown with the account's invoicePrefix), credit notes. */
export type DocumentSeries = "INV" | "CN";

/**
 * A number given to a document (`documentNumbers`): `_id` `<account>:<series>:<n>` decides that no two documents hold
 * one number. `prefix` is the one in force when it was claimed.
 */
interface SlotDoc {
  _id: string;
  accountId: string;
  series: DocumentSeries;
  n: number;
  documentId: string;
  prefix: string;
  claimedAt: Date;
}

/**
 * A document's k-th try at a number (`documentNumberAttempts`): `_id` `<account>/<series>/<document>/<k>` decides
 * which number the document tries k-th, so every claimant of one document tries the same numbers in the same order
 * and the document holds one slot at most: the number of its first try whose slot it holds (docs/decisions.md,
 * "Document numbers on a sharded cluster").
 */
interface AttemptDoc {
  _id: string;
  accountId: string;
  series: DocumentSeries;
  documentId: string;
  attempt: number;
  n: number;
  prefix: string;
  claimedAt: Date;
}

export interface DocumentNumber {
  n: number;
  /** `PREFIX-000042`. */
  number: string;
}

/** `INV-000042`: the prefix, a dash, and the sequence number on at least 6 digits. */
export const formatDocumentNumber = (prefix: string, n: number) => `${prefix}-${String(n).padStart(6, "0")}`;

/** Each failed attempt means another document took the number tried: only a long burst of claims gets here. */
const MAX_CLAIM_ATTEMPTS = 500;
/** Numbers read per step of the migration to attempts (claimStoredNumbers): a bounded batch per upkeep tick. */
export const NUMBERS_PER_MIGRATION_STEP = 1000;
const MIGRATION_ID = "attempts";

const slotId = (accountId: string, series: DocumentSeries, n: number) => `${accountId}:${series}:${n}`;
const attemptId = (accountId: string, series: DocumentSeries, documentId: string, attempt: number) =>
  `${accountId}/${series}/${documentId}/${attempt}`;

const numberOf = (slot: Pick<SlotDoc, "n" | "prefix">): DocumentNumber => ({
  n: slot.n,
  number: formatDocumentNumber(slot.prefix, slot.n),
});

const slotOf = (attempt: AttemptDoc): SlotDoc => ({
  _id: slotId(attempt.accountId, attempt.series, attempt.n),
  accountId: attempt.accountId,
  series: attempt.series,
  n: attempt.n,
  documentId: attempt.documentId,
  prefix: attempt.prefix,
  claimedAt: attempt.claimedAt,
});

interface ClaimRequest {
  accountId: string;
  series: DocumentSeries;
  documentId: string;
  prefix: string;
  /** The numbers claimed before by the caller's work (a billing pass), by `account:series`: a first guess. */
  guesses?: LastOfEach;
}

/** Rounds of a batch's claim together (claimMany): the numbers it lost are claimed again after the last one given. */
const BATCH_CLAIM_ROUNDS = 3;

export function createDocumentNumberRepository(db: Db, hooks: Hooks) {
  const slots = db.collection<SlotDoc>("documentNumbers");
  const attempts = db.collection<AttemptDoc>("documentNumberAttempts");
  const migrations = db.collection<MigrationProgress<AfterId<string>>>("documentNumber_migrations");
  const attemptsMigration = pagedMigration(migrations, MIGRATION_ID);
  /** Whether every number stored before attempts existed has its attempt (claimStoredNumbers is done). */
  let migrated = false;

  const isMigrated = async () => {
    if (!migrated) migrated = (await migrations.findOne({ _id: MIGRATION_ID }))?.done === true;
    return migrated;
  };

  const lastN = async (accountId: string, series: DocumentSeries) =>
    (await slots.findOne({ accountId, series }, { sort: { n: -1 }, projection: { n: 1 } }))?.n ?? 0;

  /** Inserts the slot an attempt tries (a claimant of the document may help another's), then reads whose it is. */
  async function slotTried(attempt: AttemptDoc): Promise<SlotDoc | null> {
    const slot = slotOf(attempt);
    if (await wonInsert(slots.insertOne(slot))) return slot;
    const { accountId, series } = slot;
    return slots.findOne(routedById(slots, { _id: slot._id }, { accountId, series }));
  }

  /**
   * Where the document stands: its number, or the attempt to make next. Its last attempt decides: its slot held by
   * the document (inserted now when missing: the attempt's claimant stopped or is about to), or by another (next).
   */
  async function standing(
    accountId: string,
    series: DocumentSeries,
    documentId: string,
  ): Promise<{ number: DocumentNumber } | { next: number }> {
    const last = await attempts.findOne({ accountId, series, documentId }, { sort: { attempt: -1 } });
    if (!last) {
      // A number claimed before attempts existed, until claimStoredNumbers gave each its attempt.
      const stored = (await isMigrated()) ? null : await slots.findOne({ accountId, series, documentId });
      return stored ? { number: numberOf(stored) } : { next: 1 };
    }
    const slot = await slotTried(last);
    if (slot?.documentId === documentId) return { number: numberOf(slot) };
    return { next: last.attempt + 1 };
  }

  return {
    async ensureIndexes() {
      // The series' last number, on a cluster from the one shard of the series (the key `{ accountId, series }`,
      // which this index supports). `_id` decides a number's race (no two documents with one number), the attempts'
      // `_id` a document's (one number per document): neither needs a unique index the shard key cannot prefix.
      await slots.createIndex({ accountId: 1, series: 1, n: -1 });
      await attempts.createIndex({ accountId: 1, series: 1, documentId: 1, attempt: 1 });
      // A database without numbers has none to migrate: done from the start.
      if (!(await slots.findOne({}, { sort: { _id: 1 }, projection: { _id: 1 } }))) {
        await attemptsMigration.markDone();
        migrated = true;
      }
    },

    /**
     * The document's number: the one it was given, else the next of the series (last + 1, so no gap). Two unique
     * inserts decide it: the document's next attempt (which number it tries), then that number's slot; a slot lost to
     * another document makes the next attempt. Claim only for a document that keeps its number whatever follows (its
     * finalization is recorded), so that no number is left unused.
     */
    async claim({ accountId, series, documentId, prefix, guesses }: ClaimRequest): Promise<DocumentNumber> {
      const seriesKey = `${accountId}:${series}`;
      // The attempt to make next, once known without reading: after this call's own attempt lost its slot.
      let known: number | undefined;
      for (let round = 1; round <= MAX_CLAIM_ATTEMPTS; round += 1) {
        // The first round trusts the last number the caller claimed in the series, and that the document has no
        // attempt yet: a wrong guess fails an insert, and the next round reads.
        const guess = round === 1 ? guesses?.get(seriesKey) : undefined;
        let next = known ?? 1;
        if (guess === undefined && known === undefined) {
          const stand = await standing(accountId, series, documentId);
          if ("number" in stand) return stand.number;
          next = stand.next;
        }
        known = undefined;
        const n = (guess ?? (await lastN(accountId, series))) + 1;
        const attempt: AttemptDoc = {
          _id: attemptId(accountId, series, documentId, next),
          ...{ accountId, series, documentId, attempt: next, n, prefix, claimedAt: new Date() },
        };
        await hooks("documentNumbers.claim", documentId);
        if (!(await wonInsert(attempts.insertOne(attempt)))) continue;
        const slot = slotOf(attempt);
        const held = (await wonInsert(slots.insertOne(slot))) ? slot : await slots.findOne({ _id: slot._id });
        if (held?.documentId === documentId) {
          guesses?.remember(seriesKey, n);
          return numberOf(held);
        }
        // Another document holds the number tried: this document's next attempt (another claimant of it may make
        // that one first: its insert decides).
        if (held) known = next + 1;
      }
      throw new Error(`no number claimed in series ${series} after ${MAX_CLAIM_ATTEMPTS} attempts`);
    },

    /**
     * claim for several documents of one series at once (a billing batch's finalizations): one unordered insert of
     * their attempts, at the numbers after the caller's last (`guesses`, else the series' last, read), then one of the
     * slots of the attempts that won: the numbers it got, by document. Only for documents that cannot hold a number
     * yet (their finalization was just logged). Slots lost to other documents are read (one of the document's own
     * claimants may have inserted it) and tried again together at the next attempt, after the series' last
     * (BATCH_CLAIM_ROUNDS); a document whose attempt lost (another claimant of it is at work), or still without a
     * number, claims alone (`claim`). Each round's numbers follow the last given, so none is left unused.
     */
    async claimMany({
      accountId,
      series,
      documentIds,
      prefix,
      guesses,
    }: Omit<ClaimRequest, "documentId"> & { documentIds: string[] }): Promise<Map<string, DocumentNumber>> {
      if (documentIds.length === 0) return new Map();
      const seriesKey = `${accountId}:${series}`;
      const given = new Map<string, DocumentNumber>();
      for (const documentId of documentIds) await hooks("documentNumbers.claim", documentId);
      /** The documents still to number, each with the attempt it makes next. */
      let unclaimed = documentIds.map((documentId) => ({ documentId, attempt: 1 }));
      for (let round = 1; round <= BATCH_CLAIM_ROUNDS && unclaimed.length > 0; round += 1) {
        const last = (round === 1 ? guesses?.get(seriesKey) : undefined) ?? (await lastN(accountId, series));
        const claimedAt = new Date();
        const batch = unclaimed.map(({ documentId, attempt }, index): AttemptDoc => {
          const n = last + index + 1;
          const _id = attemptId(accountId, series, documentId, attempt);
          return { _id, accountId, series, documentId, attempt, n, prefix, claimedAt };
        });
        const tried = await wonInserts(attempts.insertMany(batch, { ordered: false }), batch.length);
        const trying = batch.filter((_, index) => tried.has(index));
        if (trying.length === 0) break;
        const won = await wonInserts(slots.insertMany(trying.map(slotOf), { ordered: false }), trying.length);
        const lost = trying.filter((_, index) => !won.has(index));
        const holders = new Map<string, SlotDoc>();
        if (lost.length > 0) {
          const ids = lost.map((attempt) => slotId(accountId, series, attempt.n));
          const held = slots.find(routedById(slots, { _id: { $in: ids } }, { accountId, series }));
          for (const slot of await held.toArray()) holders.set(slot._id, slot);
        }
        for (const [index, attempt] of trying.entries()) {
          const slot = won.has(index) ? slotOf(attempt) : holders.get(slotId(accountId, series, attempt.n));
          if (slot?.documentId === attempt.documentId) given.set(attempt.documentId, numberOf(slot));
        }
        const kept = trying.filter(({ documentId }) => given.has(documentId));
        if (kept.length > 0) guesses?.remember(seriesKey, Math.max(...kept.map(({ n }) => n)));
        // A slot held by another document: this document makes its next attempt next round. A slot not found (as
        // when a test deleted it) is left to `claim`, which reads where the document stands.
        unclaimed = lost
          .filter(({ documentId, n }) => !given.has(documentId) && holders.has(slotId(accountId, series, n)))
          .map(({ documentId, attempt }) => ({ documentId, attempt: attempt + 1 }));
      }
      return given;
    },

    /** The number the document was given, if any (its pending attempt's slot inserted, as a claim would). */
    async of(accountId: string, series: DocumentSeries, documentId: string): Promise<DocumentNumber | undefined> {
      const stand = await standing(accountId, series, documentId);
      return "number" in stand ? stand.number : undefined;
    },

    /**
     * One step of the migration of databases from before attempts: gives the next NUMBERS_PER_MIGRATION_STEP numbers
     * (in `_id` order) their document's first attempt (one already there is kept), then the progress; once none is
     * left, drops the old unique indexes `(accountId, series, n)` and `(accountId, series, documentId)` (which decided
     * both races meanwhile, so that the collection can be sharded on `_id`) and marks it done. Returns how many
     * numbers it read (0: done). Bounded and resumable (db/paged-migration.ts).
     */
    async claimStoredNumbers(): Promise<number> {
      if (migrated) return 0;
      const giveFirstAttempts = async (page: SlotDoc[]) => {
        const firsts: AttemptDoc[] = page.map(({ accountId, series, documentId, n, prefix, claimedAt }) => ({
          _id: attemptId(accountId, series, documentId, 1),
          ...{ accountId, series, documentId, attempt: 1, n, prefix, claimedAt },
        }));
        await attempts.insertMany(firsts, { ordered: false }).catch(duplicateKeyIndexes);
      };
      const dropOldIndexes = async () => {
        for (const name of ["accountId_1_series_1_n_1", "accountId_1_series_1_documentId_1"])
          await slots.dropIndex(name).catch(() => undefined);
      };
      const pages = walkById((after) => slots.find(afterId(after)), NUMBERS_PER_MIGRATION_STEP, giveFirstAttempts);
      const read = await attemptsMigration.step(pages, dropOldIndexes);
      if (attemptsMigration.doneSeen) migrated = true;
      return read;
    },
  };
}
