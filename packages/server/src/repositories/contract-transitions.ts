import type { ContractHistoryEntry, ContractStatus } from "@billing/shared";
import type { Db, Document } from "mongodb";
import { changedSince } from "../db/changed-since.js";
import { isDuplicateKeyError } from "../db/duplicate-key.js";
import { routedById } from "../db/find-owned.js";
import { canonicalId, iso } from "../db/ids.js";
import type { LifecycleEntry } from "../domain/contracts/status.js";

/** One recorded change of a contract's lifecycle, keyed `<contractId>:<n>`: the unique key lets one writer have n. */
interface ContractTransitionDoc {
  _id: string;
  accountId: string;
  contractId: string;
  n: number;
  at: Date;
  kind: LifecycleEntry["kind"];
  from?: ContractStatus;
  to?: ContractStatus;
  endDate?: Date;
  fields?: string[];
  /** On a change of seats: what it changed. */
  seats?: { product: string; quantity: number; effectiveFrom: Date };
  by: string;
  /**
   * On the first entry of a change: what the change sets on the contract. The log is the truth: an effect not
   * written (a crash between the two writes) is written by the next read (repositories/contracts.ts completePending).
   */
  effect?: Document;
  /** When the change was recorded: the contract's `updatedAt` from that change (absent on entries from before). */
  recordedAt?: Date;
}

/** One recorded entry of a contract's lifecycle, as the webhook sweep reads it. */
export interface RecordedTransition {
  contractId: string;
  kind: LifecycleEntry["kind"];
  to?: ContractStatus;
  recordedAt: Date;
}

/** The log entry `n` of a contract: its id names the contract and the place, so two writers of it collide. */
const entryId = (contractId: string, n: number) => `${contractId}:${n}`;

/**
 * One change of a contract as it is logged: its entries, taking the places after the contract's `version`, what it
 * sets on the contract (`effect`), and when it was recorded (the contract's `updatedAt` from it).
 */
export interface LoggedChange {
  accountId: string;
  contractId: string;
  version: number;
  entries: LifecycleEntry[];
  effect: Document;
  recordedAt: Date;
}

/** The log entries of one change, `version + 1…`; the first carries its effect. */
function logEntries({ accountId, contractId, version, entries, effect, recordedAt }: LoggedChange) {
  const id = canonicalId(contractId);
  return entries.map(
    ({ at, endDate, from, to, kind, fields, seats, by }, index): ContractTransitionDoc => ({
      _id: entryId(id, version + 1 + index),
      accountId,
      contractId: id,
      n: version + 1 + index,
      at: new Date(at),
      kind,
      ...(from && { from }),
      ...(to && { to }),
      ...(endDate && { endDate: new Date(endDate) }),
      ...(fields && { fields }),
      ...(seats && { seats: { ...seats, effectiveFrom: new Date(seats.effectiveFrom) } }),
      by,
      recordedAt,
      ...(index === 0 && { effect }),
    }),
  );
}

/**
 * Each contract's lifecycle log: a change of a contract is its entries `version + 1…`, inserted at once, the unique
 * `_id` of each place letting one writer have it; the first carries what the change sets on the contract, which the
 * contract repository writes next, and completes from here when a crash came between the two writes.
 */
export function createContractTransitionRepository(db: Db) {
  const transitions = db.collection<ContractTransitionDoc>("contractTransitions");

  return {
    async ensureIndexes() {
      await transitions.createIndex({ accountId: 1, contractId: 1, n: 1 });
      // The webhook sweep's reading of recently recorded changes.
      await transitions.createIndex({ recordedAt: 1 });
    },

    /** Logs one change as the entries `version + 1…`, the first carrying `effect`; false when another took them. */
    async append(change: LoggedChange): Promise<boolean> {
      try {
        await transitions.insertMany(logEntries(change), { ordered: true });
        return true;
      } catch (error) {
        if (isDuplicateKeyError(error)) return false;
        throw error;
      }
    },

    /** Of these contracts (each with its `version`), those with a logged change past it: its effect not written. */
    async behind(contracts: { id: string; version: number }[]): Promise<Set<string>> {
      const next = contracts.map(({ id, version }) => entryId(id, version + 1));
      // One contract: a filter of `_id` alone, the one FerretDB serves without decoding the collection.
      const ids = contracts.map(({ id }) => id);
      const filter =
        next.length === 1
          ? routedById(transitions, { _id: next[0] as string }, { contractId: ids[0] })
          : routedById(transitions, { _id: { $in: next } }, { contractId: { $in: ids } });
      const found = await transitions.find(filter, { projection: { contractId: 1 } }).toArray();
      return new Set(found.map(({ contractId }) => contractId));
    },

    /** The contract's entries after the `n`-th, in order. */
    after: (accountId: string, contractId: string, n: number) =>
      transitions
        .find({ accountId, contractId, n: { $gt: n } })
        .sort({ n: 1 })
        .toArray(),

    /** The contract's recorded changes in order (at most `limit`: a contract has a few a term). */
    async history(accountId: string, contractId: string, limit: number): Promise<ContractHistoryEntry[]> {
      const docs = await transitions
        .find({ accountId, contractId: canonicalId(contractId) })
        .sort({ n: 1 })
        .limit(limit)
        .toArray();
      // A deletion ends the log of a contract no history request reads.
      return docs.flatMap(({ at, kind, from, to, endDate, fields, seats, by }) =>
        kind === "deletion"
          ? []
          : {
              at: iso(at),
              kind,
              ...(from && { from }),
              ...(to && { to }),
              ...(endDate && { endDate: iso(endDate) }),
              ...(fields && { fields }),
              ...(seats && { seats: { ...seats, effectiveFrom: iso(seats.effectiveFrom) } }),
              by,
            },
      );
    },

    /** Lifecycle entries recorded at or after `since`, across accounts, oldest first: for the webhook sweep. */
    recordedSince(since: Date, limit: number) {
      return changedSince(
        transitions,
        "recordedAt",
        since,
        limit,
        ({ contractId, kind, to, recordedAt }): RecordedTransition => ({
          contractId,
          kind,
          ...(to && { to }),
          recordedAt: recordedAt ?? since,
        }),
      );
    },
  };
}
export type ContractTransitionRepository = ReturnType<typeof createContractTransitionRepository>;
