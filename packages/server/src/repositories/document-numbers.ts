import type { Db } from "mongodb";
import { isDuplicateKeyError, wonInserts } from "../db/duplicate-key.js";
import type { LastOfEach } from "../db/last-of-each.js";
import type { Hooks } from "./hooks.js";

/** The sequences of numbered documents: invoices (`INV`, shown with the account's invoicePrefix), credit notes. */
export type DocumentSeries = "INV" | "CN";

/**
 * One number given to one document: unique per (account, series, n) and per (account, series, document), so a
 * number goes to one document and a document holds one number. `prefix` is the one in force when it was claimed.
 */
interface ClaimDoc {
  _id: string;
  accountId: string;
  series: DocumentSeries;
  n: number;
  documentId: string;
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

/** Rounds of a batch's claim together (claimMany): the numbers it lost are claimed again after the last one given. */
const BATCH_CLAIM_ROUNDS = 3;

export function createDocumentNumberRepository(db: Db, hooks: Hooks) {
  const claims = db.collection<ClaimDoc>("documentNumbers");

  const claimOf = async (accountId: string, series: DocumentSeries, documentId: string) =>
    claims.findOne({ accountId, series, documentId });

  const lastN = async (accountId: string, series: DocumentSeries) =>
    (await claims.findOne({ accountId, series }, { sort: { n: -1 }, projection: { n: 1 } }))?.n ?? 0;

  const numberOf = (claim: ClaimDoc): DocumentNumber => ({
    n: claim.n,
    number: formatDocumentNumber(claim.prefix, claim.n),
  });

  return {
    async ensureIndexes() {
      // No two documents with one number, and no document with two numbers: both races are decided here.
      await claims.createIndex({ accountId: 1, series: 1, n: 1 }, { unique: true });
      await claims.createIndex({ accountId: 1, series: 1, documentId: 1 }, { unique: true });
    },

    /**
     * The document's number: the one it was given, else the next of the series (last + 1, so no gap), decided by a
     * unique insert; a claim that loses to another document tries the next number. Claim only for a document that
     * keeps its number whatever follows (its finalization is recorded), so that no number is left unused.
     */
    async claim({
      accountId,
      series,
      documentId,
      prefix,
      guesses,
    }: {
      accountId: string;
      series: DocumentSeries;
      documentId: string;
      prefix: string;
      /** The numbers claimed before by the caller's work (a billing pass), by `account:series`: a first guess. */
      guesses?: LastOfEach;
    }): Promise<DocumentNumber> {
      const seriesKey = `${accountId}:${series}`;
      for (let attempt = 1; attempt <= MAX_CLAIM_ATTEMPTS; attempt += 1) {
        // The first attempt trusts the last number the caller claimed in the series: a wrong guess (another call
        // claimed since, or the document has its number) fails the insert, and the next attempt reads.
        const guess = attempt === 1 ? guesses?.get(seriesKey) : undefined;
        if (guess === undefined) {
          const existing = await claimOf(accountId, series, documentId);
          if (existing) return numberOf(existing);
        }
        const n = (guess ?? (await lastN(accountId, series))) + 1;
        const claim: ClaimDoc = {
          _id: `${accountId}:${series}:${n}`,
          accountId,
          series,
          n,
          documentId,
          prefix,
          claimedAt: new Date(),
        };
        try {
          await hooks("documentNumbers.claim", documentId);
          await claims.insertOne(claim);
          guesses?.remember(seriesKey, n);
          return numberOf(claim);
        } catch (error) {
          if (!isDuplicateKeyError(error)) throw error;
        }
      }
      throw new Error(`no number claimed in series ${series} after ${MAX_CLAIM_ATTEMPTS} attempts`);
    },

    /**
     * claim for several documents of one series at once (a billing batch's finalizations), in one unordered insert
     * of the numbers after the caller's last (`guesses`, else the series' last, read): the numbers it got, by
     * document. Only for documents that cannot hold a number yet (their finalization was just logged): numbers lost
     * to other documents are claimed again together after the series' last (BATCH_CLAIM_ROUNDS), and a document
     * still without one claims alone (`claim`); each round's numbers follow the last given, so none is left unused.
     */
    async claimMany({
      accountId,
      series,
      documentIds,
      prefix,
      guesses,
    }: {
      accountId: string;
      series: DocumentSeries;
      documentIds: string[];
      prefix: string;
      guesses?: LastOfEach;
    }): Promise<Map<string, DocumentNumber>> {
      if (documentIds.length === 0) return new Map();
      const seriesKey = `${accountId}:${series}`;
      const given = new Map<string, DocumentNumber>();
      for (const documentId of documentIds) await hooks("documentNumbers.claim", documentId);
      let unclaimed = documentIds;
      // Numbers lost to another run finalizing beside this one are claimed together again, after the last one given
      // (read afresh), rather than one by one; what is still lost after BATCH_CLAIM_ROUNDS is the caller's to claim.
      for (let round = 1; round <= BATCH_CLAIM_ROUNDS && unclaimed.length > 0; round += 1) {
        const last = (round === 1 ? guesses?.get(seriesKey) : undefined) ?? (await lastN(accountId, series));
        const claimedAt = new Date();
        const batch = unclaimed.map((documentId, index): ClaimDoc => {
          const n = last + index + 1;
          return { _id: `${accountId}:${series}:${n}`, accountId, series, n, documentId, prefix, claimedAt };
        });
        const won = await wonInserts(claims.insertMany(batch, { ordered: false }), batch.length);
        const kept = batch.filter((_, index) => won.has(index));
        if (kept.length > 0) guesses?.remember(seriesKey, Math.max(...kept.map(({ n }) => n)));
        for (const claim of kept) given.set(claim.documentId, numberOf(claim));
        unclaimed = unclaimed.filter((documentId) => !given.has(documentId));
      }
      return given;
    },

    /** The number the document was given, if any. */
    async of(accountId: string, series: DocumentSeries, documentId: string): Promise<DocumentNumber | undefined> {
      const claim = await claimOf(accountId, series, documentId);
      return claim ? numberOf(claim) : undefined;
    },
  };
}
