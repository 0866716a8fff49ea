import type { ContractAmendment, ContractHistoryEntry } from "@billing/shared";
import { type Db, type Document, type Filter, ObjectId } from "mongodb";
import { testClockOf } from "../billing-clock.js";
import { changedSince } from "../db/changed-since.js";
import { countedStream } from "../db/counted-stream.js";
import { wonInsert } from "../db/duplicate-key.js";
import { findOwned } from "../db/find-owned.js";
import { canonicalId, toObjectId } from "../db/ids.js";
import { findPage, ID_ORDER, type PageRequest } from "../db/pagination.js";
import type { ContractCreateInMicros, ContractInMicros } from "../domain/billing/contract.js";
import type { AmendedTerms } from "../domain/contracts/amendments.js";
import type { AmendedDealTerms } from "../domain/contracts/deal-terms.js";
import type { SeatChange } from "../domain/contracts/seats.js";
import type { LifecycleEntry } from "../domain/contracts/status.js";
import {
  type ContractDoc,
  effectOf,
  type LifecycleState,
  newContractDoc,
  toContract,
} from "../presenters/stored-contracts.js";
import type { ContractTransitionRepository, LoggedChange } from "./contract-transitions.js";
import type { Hooks } from "./hooks.js";
import type { ListCountRepository } from "./list-counts.js";

export type { LifecycleState } from "../presenters/stored-contracts.js";

/**
 * One per deleted contract, keyed by the contract's id: the unique `_id` lets exactly one deletion win. Its deletion
 * is then logged as a change of the contract (see logDeletion), by whoever completes it.
 */
export interface ContractDeletionDoc {
  _id: ObjectId;
  accountId: string;
  deletedAt: Date;
  /** The token that deleted it (absent on deletions recorded before it was kept). */
  by?: string;
}

/**
 * The contracts, soft-deleted (contractDeletions) and changed through their lifecycle log (`transitions`: a change is
 * logged, then set on the contract, and completed from the log by the next read when a crash came between). Each is
 * read as its last recorded change left it: what time has made of it since is the reader's (services/contract-reads).
 */
export function createContractRepository(
  db: Db,
  hooks: Hooks,
  listCounts: ListCountRepository,
  transitions: ContractTransitionRepository,
) {
  const contracts = db.collection<ContractDoc>("contracts");
  const deletions = db.collection<ContractDeletionDoc>("contractDeletions");
  // The list's total is created minus deleted, two streams kept counted: contracts are soft-deleted (a contract keeps
  // its createdAt), and a deletion record, decided by its unique insert, is never removed.
  const created = countedStream("contracts", contracts, "createdAt");
  const deleted = countedStream("contractDeletions", deletions, "deletedAt");

  /** The account's contract with this id unless it is deleted (deleted contracts are kept but out of every read). */
  async function findLive(accountId: string, contractId: string, projection?: Document) {
    const doc = await findOwned(
      contracts,
      accountId,
      toObjectId(contractId),
      projection && { ...projection, deletedAt: 1 },
    );
    return doc && !doc.deletedAt ? doc : undefined;
  }

  /** The account's contracts of these ids, deleted ones included, in one read (none for no id). */
  async function findMany(accountId: string, contractIds: string[]) {
    const ids = contractIds.flatMap((id) => toObjectId(id) ?? []);
    if (ids.length === 0) return [];
    // One contract: by `_id` alone, the lookup FerretDB serves without decoding the collection.
    if (ids.length === 1) return [await findOwned(contracts, accountId, ids[0])].flatMap((doc) => doc ?? []);
    return contracts.find({ accountId, _id: { $in: ids } }).toArray();
  }

  /**
   * The contracts with every logged change applied: a change whose log entries exist past the contract's `version`
   * (its update never written: a crash between the two writes) takes effect now, so that the next change can take
   * the place after it. One lookup for all of them; nothing more for those up to date.
   */
  async function completePending<D extends ContractDoc>(docs: D[]): Promise<D[]> {
    if (docs.length === 0) return docs;
    const lagging = await transitions.behind(
      docs.map((doc) => ({ id: doc._id.toHexString(), version: doc.version ?? 0 })),
    );
    if (lagging.size === 0) return docs;
    const completed: D[] = [];
    for (const doc of docs) {
      const contractId = doc._id.toHexString();
      if (!lagging.has(contractId)) {
        completed.push(doc);
        continue;
      }
      const pending = await transitions.after(doc.accountId, contractId, doc.version ?? 0);
      const effects = pending.flatMap(({ effect }) => (effect ? [effect] : []));
      const last = pending.at(-1);
      // `updatedAt` as the change recorded it (its maker would have written that): the webhook sweep finds the
      // change's entries by it and announces the change only to a contract that reads this very `updatedAt`.
      const updatedAt = last?.recordedAt ?? new Date();
      const updated = await contracts.findOneAndUpdate(
        { accountId: doc.accountId, _id: doc._id },
        { $set: { ...Object.assign({}, ...effects), version: last?.n ?? doc.version, updatedAt } },
        { returnDocument: "after" },
      );
      completed.push((updated ?? doc) as D);
    }
    return completed;
  }

  /** One contract with every logged change applied (see completePending). */
  const completeOne = async <D extends ContractDoc>(doc: D | undefined) => doc && (await completePending([doc]))[0];

  /** The live contracts among these, each with every logged change applied (its deletion, it may be). */
  const completeLive = async <D extends ContractDoc>(docs: D[]) =>
    (await completePending(docs)).filter((doc) => !doc.deletedAt);

  /** The live contract with every logged change applied. */
  const completeLiveOne = async <D extends ContractDoc>(doc: D | undefined) => doc && (await completeLive([doc]))[0];

  /**
   * Logs the change (its entries `version + 1…`, the first carrying its effect), then sets the effect on the contract
   * with its new version; undefined when another change took `version + 1` first.
   */
  async function logChange(change: LoggedChange) {
    const { accountId, contractId, version, entries, effect, recordedAt } = change;
    const id = canonicalId(contractId);
    await hooks("contracts.log", id);
    if (!(await transitions.append({ ...change, contractId: id }))) return undefined;
    await hooks("contracts.applyChange", id);
    const updated = await contracts.findOneAndUpdate(
      { accountId, _id: toObjectId(contractId) },
      { $set: { ...effect, version: version + entries.length, updatedAt: recordedAt } },
      { returnDocument: "after" },
    );
    return updated ?? undefined;
  }

  /**
   * The account's live contracts: created minus deleted. Deletions are read first, so that a contract created and
   * deleted between the two reads is counted live (as it was), never a count below the live contracts.
   */
  async function liveTotal(accountId: string) {
    const deletedCount = await listCounts.total(accountId, deleted);
    return (await listCounts.total(accountId, created)) - deletedCount;
  }

  return {
    async ensureIndexes() {
      await contracts.createIndex({ accountId: 1, deletedAt: 1, _id: 1 });
      await contracts.createIndex({ accountId: 1, customerId: 1, deletedAt: 1, _id: 1 });
      // The webhook sweep's reading of recent creations and deletions.
      await contracts.createIndex({ createdAt: 1 });
      await contracts.createIndex({ deletedAt: 1 });
      // The list total's counting (countedStream).
      await contracts.createIndex({ accountId: 1, createdAt: 1, _id: 1 });
      await deletions.createIndex({ accountId: 1, deletedAt: 1, _id: 1 });
      // A plan's subscribers: per version (counts, lists, a migration's batches) and all of them.
      await contracts.createIndex({ accountId: 1, "plan.id": 1, "plan.version": 1, deletedAt: 1, _id: 1 });
      await contracts.createIndex({ accountId: 1, "plan.id": 1, deletedAt: 1, _id: 1 });
    },

    /** Every live (not deleted) contract of a customer, oldest first. */
    async ofCustomer(accountId: string, customerId: string): Promise<ContractInMicros[]> {
      const docs = await contracts
        .find({ accountId, customerId: canonicalId(customerId), deletedAt: null })
        .sort({ _id: 1 })
        .toArray();
      return (await completeLive(docs)).map(toContract);
    },

    /**
     * The contract as it will be stored, id included, and the write that stores it: the caller records what must
     * exist for every stored contract (its billing schedule) in between. The caller has checked that
     * `input.customerId` is a customer of the account.
     */
    prepare(
      accountId: string,
      input: ContractCreateInMicros,
    ): { contract: ContractInMicros; store: () => Promise<void> } {
      const enteredAt = testClockOf(accountId);
      const doc = { ...newContractDoc(accountId, input, new Date()), ...(enteredAt && { enteredAt }) };
      return {
        contract: toContract(doc),
        store: async () => {
          await contracts.insertOne(doc);
        },
      };
    },

    /** The contract even when deleted (then with `deletedAt`): for what was billed before. */
    async getIncludingDeleted(accountId: string, contractId: string): Promise<ContractInMicros | undefined> {
      const doc = await completeOne(await findOwned(contracts, accountId, toObjectId(contractId)));
      return doc ? toContract(doc) : undefined;
    },

    async get(accountId: string, contractId: string): Promise<ContractInMicros | undefined> {
      const doc = await completeLiveOne(await findLive(accountId, contractId));
      return doc ? toContract(doc) : undefined;
    },

    /** The live contract as stored (time's changes not applied) and its version: what a change starts from. */
    async getForChange(accountId: string, contractId: string) {
      const doc = await completeLiveOne(await findLive(accountId, contractId));
      return doc && { stored: toContract(doc), version: doc.version ?? 0 };
    },

    /**
     * These live contracts as stored with their versions, read together (a billing batch: one read of them and one of
     * their logs, instead of two each); a contract absent from the answer is deleted or another account's.
     */
    async manyForChange(accountId: string, contractIds: string[]) {
      const live = await completeLive(await findMany(accountId, contractIds));
      return new Map(
        live.map((doc) => [doc._id.toHexString(), { stored: toContract(doc), version: doc.version ?? 0 }] as const),
      );
    },

    /**
     * Records `changes` as the contract's entries `version + 1…` and sets `state` (with the fields `amended`, and
     * the terms of an amendment); undefined when another change took `version + 1` first (exactly one of racing
     * changes wins: FerretDB decides only unique inserts reliably). The first entry carries the effect, so a
     * crash between the two writes leaves the change to be completed, not lost (see completePending).
     */
    async applyChange(
      accountId: string,
      contractId: string,
      version: number,
      changes: ContractHistoryEntry[],
      state: LifecycleState,
      amended: ContractAmendment = {},
      terms?: AmendedTerms,
      seatChanges?: SeatChange[],
      deal?: AmendedDealTerms,
    ): Promise<ContractInMicros | undefined> {
      const effect = effectOf(state, amended, terms, seatChanges, deal);
      const updated = await logChange({
        accountId,
        contractId,
        version,
        entries: changes,
        effect,
        recordedAt: new Date(),
      });
      return updated ? toContract(updated) : undefined;
    },

    /**
     * Logs the contract's deletion (its `entries`, the deletion's last) as the change `version + 1…`, recorded at its
     * `deletedAt`: the change sets `state` and `deletedAt`, so that once it is logged every read completes it (see
     * completePending) and the contract is deleted. False when another change took `version + 1` first.
     */
    async logDeletion(
      accountId: string,
      contractId: string,
      version: number,
      entries: LifecycleEntry[],
      state: LifecycleState,
      deletedAt: Date,
    ): Promise<boolean> {
      const effect = { ...effectOf(state), deletedAt };
      return (
        (await logChange({ accountId, contractId, version, entries, effect, recordedAt: deletedAt })) !== undefined
      );
    },

    /** These contracts' `updatedAt` now, deleted ones included, each with every logged change applied. */
    async updatedAtOf(accountId: string, contractIds: string[]): Promise<Map<string, string>> {
      const completed = await completePending(await findMany(accountId, contractIds));
      return new Map(completed.map((doc) => [doc._id.toHexString(), toContract(doc).updatedAt] as const));
    },

    /**
     * Records the live contract's deletion by `by`, now: of concurrent deletions exactly one wins (`won`), and every
     * one gets the winner's record, to complete its deletion (logDeletion) in case it stopped before; undefined for
     * no live contract. A guarded findOneAndUpdate (`deletedAt: null`) cannot decide that on FerretDB 1.24, which
     * applies updates as read-then-write, so the winner is whoever inserts the contract's deletion record first.
     */
    async claimDeletion(
      accountId: string,
      contractId: string,
      by: string,
    ): Promise<{ deletion: ContractDeletionDoc; won: boolean } | undefined> {
      const contract = await findLive(accountId, contractId, { _id: 1 });
      if (!contract) return undefined;
      const { _id } = contract;
      const deletion = { _id, accountId, deletedAt: new Date(), by };
      if (await wonInsert(deletions.insertOne(deletion))) return { deletion, won: true };
      // By `_id` (with the account on a sharded cluster, which routes it: db/find-owned.ts).
      const winner = await findOwned(deletions, accountId, _id);
      return winner ? { deletion: winner, won: false } : undefined;
    },

    /**
     * Contracts created (`createdAt`) or deleted (`deletedAt`) at or after `since`, across accounts, oldest first: for
     * the webhook sweep.
     */
    changedSince(field: "createdAt" | "deletedAt", since: Date, limit: number) {
      return changedSince(contracts, field, since, limit, toContract);
    },

    /** Live contracts, of one customer when `customerId` is given (its total then counts every match). */
    async list(accountId: string, { customerId, ...page }: PageRequest & { customerId?: string | undefined }) {
      const found = await findPage(
        contracts,
        {
          accountId,
          ...(customerId !== undefined && { customerId: canonicalId(customerId) }),
          deletedAt: null,
        } as Filter<ContractDoc>,
        page,
        (doc) => doc,
        ID_ORDER,
        // undefined: the default, counting every match (the counts cover the account's whole list only).
        customerId === undefined ? () => liveTotal(accountId) : undefined,
      );
      return { ...found, items: (await completeLive(found.items)).map(toContract) };
    },

    /** How many live contracts follow each version of the plan (a version none follows is absent). */
    async planCounts(accountId: string, planId: string): Promise<Map<number, number>> {
      const groups = await contracts
        .aggregate<{ _id: number; n: number }>([
          { $match: { accountId, "plan.id": planId, deletedAt: null } },
          { $group: { _id: "$plan.version", n: { $sum: 1 } } },
        ])
        .toArray();
      return new Map(groups.map(({ _id, n }) => [_id, n]));
    },

    /** Live contracts following the plan (one version of it when `version` is given), oldest first. */
    async ofPlan(accountId: string, planId: string, { version, ...page }: PageRequest & { version?: number }) {
      const filter = { accountId, "plan.id": planId, ...(version !== undefined && { "plan.version": version }) };
      const found = await findPage(
        contracts,
        { ...filter, deletedAt: null } as Filter<ContractDoc>,
        page,
        (doc) => doc,
      );
      return { ...found, items: (await completeLive(found.items)).map(toContract) };
    },

    /**
     * A migration's next batch: up to `limit` live contracts following one of `versions` of the plan, after the
     * contract `after` in id order.
     */
    async planBatch(accountId: string, planId: string, versions: number[], after: string | undefined, limit: number) {
      const filter = { accountId, "plan.id": planId, "plan.version": { $in: versions }, deletedAt: null };
      const docs = await contracts
        .find({ ...filter, ...(after && { _id: { $gt: new ObjectId(after) } }) } as Filter<ContractDoc>)
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      const last = docs.at(-1)?._id.toHexString();
      return { contracts: (await completeLive(docs)).map(toContract), last, full: docs.length === limit };
    },

    /** How many live contracts follow one of `versions` of the plan. */
    countOnPlan(accountId: string, planId: string, versions: number[]) {
      return contracts.countDocuments({
        accountId,
        "plan.id": planId,
        "plan.version": { $in: versions },
        deletedAt: null,
      } as Filter<ContractDoc>);
    },

    /** What the list's total counts: compacted by services/list-totals.ts. */
    countedStreams: [created, deleted],
  };
}
