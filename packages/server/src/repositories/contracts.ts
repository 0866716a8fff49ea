import {
  type ContractAmendment,
  type ContractCreate,
  type ContractHistoryEntry,
  type ContractStatus,
  fromMicros,
  toMicros,
} from "@billing/shared";
import { type Db, type Document, type Filter, ObjectId } from "mongodb";
import { billingNow, testClockOf } from "../billing-clock.js";
import { changedSince } from "../db/changed-since.js";
import { countedStream } from "../db/counted-stream.js";
import { isDuplicateKeyError } from "../db/duplicate-key.js";
import { findOwned } from "../db/find-owned.js";
import { canonicalId, iso, toObjectId } from "../db/ids.js";
import { loadCustomFields, type StoredCustomField, storeCustomFields } from "../db/json-fields.js";
import { findPage, ID_ORDER, type PageRequest } from "../db/pagination.js";
import type {
  CommitmentInMicros,
  ContractCreateInMicros,
  ContractInMicros,
  ProductGroupInMicros,
  ProductInMicros,
  TermsInMicros,
  TermsVersionInMicros,
} from "../domain/billing/contract.js";
import type { AmendedTerms } from "../domain/contracts/amendments.js";
import { contractAsOf } from "../domain/contracts/lifecycle.js";
import { DEFAULT_CURRENCY } from "../domain/money/currency.js";
import type { Hooks } from "./hooks.js";
import type { ListCountRepository } from "./list-counts.js";

/**
 * Money is stored as integer micro-units under a `…Micros` name, as the domain holds it; a commitment's `units` are
 * stored as the decimal the API took (the shape contracts were first stored in).
 */
const storeCommitment = ({ unitsMicros, ...rest }: CommitmentInMicros) => ({ units: fromMicros(unitsMicros), ...rest });
type StoredCommitment = ReturnType<typeof storeCommitment>;
const loadCommitment = ({ units, ...rest }: StoredCommitment): CommitmentInMicros => ({
  unitsMicros: toMicros(units),
  ...rest,
});

const storeProduct = ({ commitment, ...rest }: ProductInMicros) => ({
  ...rest,
  ...(commitment && { commitment: storeCommitment(commitment) }),
});
type StoredProduct = ReturnType<typeof storeProduct>;

const loadProduct = ({ commitment, ...rest }: StoredProduct): ProductInMicros => ({
  ...rest,
  ...(commitment && { commitment: loadCommitment(commitment) }),
});

const storeProductGroup = ({ products, commitment, ...rest }: ProductGroupInMicros) => ({
  ...rest,
  products: products.map(storeProduct),
  ...(commitment && { commitment: storeCommitment(commitment) }),
});
type StoredProductGroup = ReturnType<typeof storeProductGroup>;

const loadProductGroup = ({ products, commitment, ...rest }: StoredProductGroup): ProductGroupInMicros => ({
  ...rest,
  products: products.map(loadProduct),
  ...(commitment && { commitment: loadCommitment(commitment) }),
});

const storeTerms = ({ products, productGroups }: TermsInMicros) => ({
  ...(products && { products: products.map(storeProduct) }),
  ...(productGroups && { productGroups: productGroups.map(storeProductGroup) }),
});
type StoredTerms = ReturnType<typeof storeTerms>;
const loadTerms = ({ products, productGroups }: StoredTerms): TermsInMicros => ({
  ...(products && { products: products.map(loadProduct) }),
  ...(productGroups && { productGroups: productGroups.map(loadProductGroup) }),
});

/** An earlier version of the terms, as the contract keeps it (see TermsVersionInMicros). */
type StoredTermsVersion = StoredTerms & { version: number; effectiveFrom?: Date };

const storeTermsVersion = ({ version, effectiveFrom, ...terms }: TermsVersionInMicros): StoredTermsVersion => ({
  version,
  ...(effectiveFrom && { effectiveFrom: new Date(effectiveFrom) }),
  ...storeTerms(terms),
});
const loadTermsVersion = ({ version, effectiveFrom, ...terms }: StoredTermsVersion): TermsVersionInMicros => ({
  version,
  ...(effectiveFrom && { effectiveFrom: iso(effectiveFrom) }),
  ...loadTerms(terms),
});

type ContractDoc = Omit<
  ContractCreate,
  "startDate" | "endDate" | "signatureDate" | "products" | "productGroups" | "customFields"
> & {
  _id: ObjectId;
  accountId: string;
  startDate: Date;
  endDate?: Date;
  signatureDate?: Date;
  /** A test account's contract: its clock's time when stored (ContractLifeFields' enteredAt). */
  enteredAt?: Date;
  products?: StoredProduct[];
  productGroups?: StoredProductGroup[];
  customFields?: StoredCustomField[];
  createdAt: Date;
  updatedAt: Date;
  /** Stored as null until deletion, so live contracts match `deletedAt: null` on every engine. */
  deletedAt: Date | null;
  /** Changes of status and renewals recorded (contractTransitions): the next one is `<id>:<version + 1>`. */
  version?: number;
  /** The version of the terms (`products`, `productGroups`); absent: 1, as created. */
  termsVersion?: number;
  termsEffectiveFrom?: Date;
  earlierTerms?: StoredTermsVersion[];
  renewals?: number;
  terminationAt?: Date;
  terminationReason?: string;
  inactivePeriods?: { from: Date; to?: Date }[];
};

/** One recorded change of a contract's lifecycle, keyed `<contractId>:<n>`: the unique key lets one writer have n. */
interface ContractTransitionDoc {
  _id: string;
  accountId: string;
  contractId: string;
  n: number;
  at: Date;
  kind: ContractHistoryEntry["kind"];
  from?: ContractStatus;
  to?: ContractStatus;
  endDate?: Date;
  fields?: string[];
  by: string;
  /**
   * On the first entry of a change: what the change sets on the contract. The log is the truth: an effect not
   * written (a crash between the two writes) is written by the next read (see completePending).
   */
  effect?: Document;
  /** When the change was recorded: the contract's `updatedAt` from that change (absent on entries from before). */
  recordedAt?: Date;
}

/** One recorded entry of a contract's lifecycle, as the webhook sweep reads it. */
export interface RecordedTransition {
  contractId: string;
  kind: ContractHistoryEntry["kind"];
  to?: ContractStatus;
  recordedAt: Date;
}

/** What a change of a contract's lifecycle sets on it. */
export interface LifecycleState {
  status: ContractStatus;
  endDate?: string;
  renewals: number;
  terminationAt?: string;
  terminationReason?: string;
  inactivePeriods?: { from: string; to?: string }[];
}

const toContract = ({
  _id,
  accountId: _account,
  startDate,
  endDate,
  signatureDate,
  products,
  productGroups,
  customFields,
  createdAt,
  updatedAt,
  deletedAt,
  enteredAt,
  version: _version,
  termsVersion,
  termsEffectiveFrom,
  earlierTerms,
  renewals,
  terminationAt,
  inactivePeriods,
  currency,
  ...fields
}: ContractDoc): ContractInMicros => ({
  id: _id.toHexString(),
  ...fields,
  // Contracts stored before currencies were USD.
  currency: currency ?? DEFAULT_CURRENCY,
  renewals: renewals ?? 0,
  version: termsVersion ?? 1,
  ...(termsEffectiveFrom && { termsEffectiveFrom: iso(termsEffectiveFrom) }),
  ...(earlierTerms && { earlierTerms: earlierTerms.map(loadTermsVersion) }),
  ...(terminationAt && { terminationAt: iso(terminationAt) }),
  ...(inactivePeriods && {
    inactivePeriods: inactivePeriods.map(({ from, to }) => ({ from: iso(from), ...(to && { to: iso(to) }) })),
  }),
  startDate: iso(startDate),
  ...(endDate && { endDate: iso(endDate) }),
  ...(signatureDate && { signatureDate: iso(signatureDate) }),
  ...(products && { products: products.map(loadProduct) }),
  ...(productGroups && { productGroups: productGroups.map(loadProductGroup) }),
  ...(customFields && { customFields: loadCustomFields(customFields) }),
  createdAt: iso(createdAt),
  updatedAt: iso(updatedAt),
  ...(deletedAt && { deletedAt: iso(deletedAt) }),
  ...(enteredAt && { enteredAt: iso(enteredAt) }),
});

/** The contract as time has made it now (renewed, expired, terminated when due): what every read answers. */
const toCurrentContract = (doc: ContractDoc): ContractInMicros =>
  contractAsOf(toContract(doc), billingNow(doc.accountId)).contract;

const toDoc = (
  accountId: string,
  {
    startDate,
    endDate,
    signatureDate,
    customerId,
    products,
    productGroups,
    customFields,
    ...fields
  }: ContractCreateInMicros,
  now: Date,
): ContractDoc => ({
  _id: new ObjectId(),
  accountId,
  ...fields,
  // The customer's canonical id (lowercase hex), so contracts join to their customer by plain equality.
  customerId: canonicalId(customerId),
  startDate: new Date(startDate),
  ...(endDate && { endDate: new Date(endDate) }),
  ...(signatureDate && { signatureDate: new Date(signatureDate) }),
  ...(products && { products: products.map(storeProduct) }),
  ...(productGroups && { productGroups: productGroups.map(storeProductGroup) }),
  ...(customFields && { customFields: storeCustomFields(customFields) }),
  createdAt: now,
  updatedAt: now,
  deletedAt: null,
});

/** What a change sets on the contract: its lifecycle state, the fields amended, the terms of an amendment. */
function effectOf(
  { endDate, terminationAt, inactivePeriods, ...rest }: LifecycleState,
  { customFields, ...amended }: ContractAmendment = {},
  terms?: AmendedTerms,
): Document {
  return {
    ...amended,
    ...(customFields && { customFields: storeCustomFields(customFields) }),
    ...rest,
    ...(endDate && { endDate: new Date(endDate) }),
    ...(terminationAt && { terminationAt: new Date(terminationAt) }),
    ...(inactivePeriods && {
      inactivePeriods: inactivePeriods.map(({ from, to }) => ({
        from: new Date(from),
        ...(to && { to: new Date(to) }),
      })),
    }),
    ...(terms && {
      ...storeTerms(terms),
      termsVersion: terms.version,
      termsEffectiveFrom: new Date(terms.termsEffectiveFrom),
      earlierTerms: terms.earlierTerms.map(storeTermsVersion),
    }),
  };
}

/** The log entries of one change, `version + 1…`; the first carries its effect. */
function logEntries(
  accountId: string,
  contractId: string,
  version: number,
  changes: ContractHistoryEntry[],
  effect: Document,
  recordedAt: Date,
): ContractTransitionDoc[] {
  const id = canonicalId(contractId);
  return changes.map(({ at, endDate, from, to, kind, fields, by }, index) => ({
    _id: `${id}:${version + 1 + index}`,
    accountId,
    contractId: id,
    n: version + 1 + index,
    at: new Date(at),
    kind,
    ...(from && { from }),
    ...(to && { to }),
    ...(endDate && { endDate: new Date(endDate) }),
    ...(fields && { fields }),
    by,
    recordedAt,
    ...(index === 0 && { effect }),
  }));
}

/**
 * A change of a contract in flight: written before the change checks what is invoiced and logs itself, removed once
 * it is done. A billing run that has stored an invoice looks for these (see changesInFlight): a change that checked
 * before the invoice existed is then still visible, logged or not.
 */
interface ContractChangeInFlightDoc {
  _id: ObjectId;
  accountId: string;
  contractId: string;
  at: Date;
}

/** One per deleted contract, keyed by the contract's id: the unique `_id` lets exactly one deletion win. */
interface ContractDeletionDoc {
  _id: ObjectId;
  accountId: string;
  deletedAt: Date;
}

export function createContractRepository(db: Db, hooks: Hooks, listCounts: ListCountRepository) {
  const contracts = db.collection<ContractDoc>("contracts");
  const deletions = db.collection<ContractDeletionDoc>("contractDeletions");
  // The list's total is created minus deleted, two streams kept counted: contracts are soft-deleted (a contract keeps
  // its createdAt), and a deletion record, decided by its unique insert, is never removed.
  const created = countedStream("contracts", contracts, "createdAt");
  const deleted = countedStream("contractDeletions", deletions, "deletedAt");
  const transitions = db.collection<ContractTransitionDoc>("contractTransitions");
  const inFlight = db.collection<ContractChangeInFlightDoc>("contractChangesInFlight");

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

  /** The log entry `n` of a contract: its id names the contract and the place, so two writers of it collide. */
  const entryId = (contractId: string, n: number) => `${contractId}:${n}`;

  /**
   * The contracts with every logged change applied: a change whose log entries exist past the contract's `version`
   * (its update never written: a crash between the two writes) takes effect now, so that the next change can take
   * the place after it. One lookup for all of them; nothing more for those up to date.
   */
  async function completePending<D extends ContractDoc>(docs: D[]): Promise<D[]> {
    if (docs.length === 0) return docs;
    const next = docs.map((doc) => entryId(doc._id.toHexString(), (doc.version ?? 0) + 1));
    // One contract: a filter of `_id` alone, the one FerretDB serves without decoding the collection.
    const behind =
      next.length === 1
        ? await transitions.find({ _id: next[0] as string }, { projection: { contractId: 1 } }).toArray()
        : await transitions.find({ _id: { $in: next } }, { projection: { contractId: 1 } }).toArray();
    if (behind.length === 0) return docs;
    const lagging = new Set(behind.map(({ contractId }) => contractId));
    const completed: D[] = [];
    for (const doc of docs) {
      const contractId = doc._id.toHexString();
      if (!lagging.has(contractId)) {
        completed.push(doc);
        continue;
      }
      const pending = await transitions
        .find({ accountId: doc.accountId, contractId, n: { $gt: doc.version ?? 0 } })
        .sort({ n: 1 })
        .toArray();
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

  /** Idempotent: every writer of one contract's deletion writes the same values, those of its deletion record. */
  const markDeleted = (accountId: string, { _id, deletedAt }: ContractDeletionDoc) =>
    contracts.findOneAndUpdate(
      { accountId, _id },
      { $set: { deletedAt, status: "Terminated", updatedAt: deletedAt } },
      { returnDocument: "after" },
    );

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
      await transitions.createIndex({ accountId: 1, contractId: 1, n: 1 });
      // The webhook sweep's reading of recently recorded changes.
      await transitions.createIndex({ recordedAt: 1 });
      await inFlight.createIndex({ accountId: 1, contractId: 1, at: 1 });
      // The list total's counting (countedStream).
      await contracts.createIndex({ accountId: 1, createdAt: 1, _id: 1 });
      await deletions.createIndex({ accountId: 1, deletedAt: 1, _id: 1 });
    },

    /** Every live (not deleted) contract of a customer, oldest first. */
    async ofCustomer(accountId: string, customerId: string): Promise<ContractInMicros[]> {
      const docs = await contracts
        .find({ accountId, customerId: canonicalId(customerId), deletedAt: null })
        .sort({ _id: 1 })
        .toArray();
      return (await completePending(docs)).map(toCurrentContract);
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
      const doc = { ...toDoc(accountId, input, new Date()), ...(enteredAt && { enteredAt }) };
      return {
        contract: toCurrentContract(doc),
        store: async () => {
          await contracts.insertOne(doc);
        },
      };
    },

    /** The contract even when deleted (then `Terminated`, with `deletedAt`): for what was billed before. */
    async getIncludingDeleted(accountId: string, contractId: string): Promise<ContractInMicros | undefined> {
      const doc = await completeOne(await findOwned(contracts, accountId, toObjectId(contractId)));
      return doc ? toCurrentContract(doc) : undefined;
    },

    async get(accountId: string, contractId: string): Promise<ContractInMicros | undefined> {
      const doc = await completeOne(await findLive(accountId, contractId));
      return doc ? toCurrentContract(doc) : undefined;
    },

    /** The live contract as stored (time's changes not applied) and its version: what a change starts from. */
    async getForChange(accountId: string, contractId: string) {
      const doc = await completeOne(await findLive(accountId, contractId));
      return doc && { stored: toContract(doc), version: doc.version ?? 0 };
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
    ): Promise<ContractInMicros | undefined> {
      const effect = effectOf(state, amended, terms);
      const id = canonicalId(contractId);
      const recordedAt = new Date();
      await hooks("contracts.log", id);
      try {
        await transitions.insertMany(logEntries(accountId, id, version, changes, effect, recordedAt), {
          ordered: true,
        });
      } catch (error) {
        if (isDuplicateKeyError(error)) return undefined;
        throw error;
      }
      await hooks("contracts.applyChange", id);
      const updated = await contracts.findOneAndUpdate(
        { accountId, _id: toObjectId(contractId) },
        { $set: { ...effect, version: version + changes.length, updatedAt: recordedAt } },
        { returnDocument: "after" },
      );
      return updated ? toCurrentContract(updated) : undefined;
    },

    /**
     * Notes that a change of the contract is under way, before it checks what is invoiced; the function returned
     * removes the note once the change is done (logged and applied, or refused).
     */
    async announceChange(accountId: string, contractId: string): Promise<() => Promise<void>> {
      const id = canonicalId(contractId);
      await hooks("contracts.announce", id);
      const { insertedId } = await inFlight.insertOne({
        _id: new ObjectId(),
        accountId,
        contractId: id,
        at: new Date(),
      });
      return async () => {
        await inFlight.deleteOne({ _id: insertedId });
      };
    },

    /** Whether a change of the contract announced at or after `since` is still under way (see announceChange). */
    async changesInFlight(accountId: string, contractId: string, since: Date): Promise<boolean> {
      const found = await inFlight.findOne(
        { accountId, contractId: canonicalId(contractId), at: { $gte: since } },
        { projection: { _id: 1 } },
      );
      return found !== null;
    },

    /** The contract's recorded changes in order (at most `limit`: a contract has a few a term). */
    async history(accountId: string, contractId: string, limit: number): Promise<ContractHistoryEntry[]> {
      const docs = await transitions
        .find({ accountId, contractId: canonicalId(contractId) })
        .sort({ n: 1 })
        .limit(limit)
        .toArray();
      return docs.map(({ at, kind, from, to, endDate, fields, by }) => ({
        at: iso(at),
        kind,
        ...(from && { from }),
        ...(to && { to }),
        ...(endDate && { endDate: iso(endDate) }),
        ...(fields && { fields }),
        by,
      }));
    },

    /**
     * Marks the contract deleted and Terminated; of concurrent deletions exactly one returns it. A guarded
     * findOneAndUpdate (`deletedAt: null`) cannot decide that on FerretDB 1.24, which applies updates as
     * read-then-write, so the winner is whoever inserts the contract's deletion record first.
     */
    async softDelete(accountId: string, contractId: string): Promise<ContractInMicros | undefined> {
      const contract = await findLive(accountId, contractId, { _id: 1 });
      if (!contract) return undefined;
      const { _id } = contract;
      const deletion = { _id, accountId, deletedAt: new Date() };
      try {
        await deletions.insertOne(deletion);
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        // Another deletion won. Complete its update, in case it stopped between its two writes.
        const winner = await deletions.findOne({ _id });
        if (winner) await markDeleted(accountId, winner);
        return undefined;
      }
      const deleted = await markDeleted(accountId, deletion);
      return deleted ? toContract(deleted) : undefined;
    },

    /**
     * Contracts created (`createdAt`) or deleted (`deletedAt`) at or after `since`, across accounts, oldest first: for
     * the webhook sweep.
     */
    changedSince(field: "createdAt" | "deletedAt", since: Date, limit: number) {
      return changedSince(contracts, field, since, limit, toContract);
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
      return { ...found, items: (await completePending(found.items)).map(toCurrentContract) };
    },

    /** What the list's total counts: compacted by services/list-totals.ts. */
    countedStreams: [created, deleted],
  };
}
