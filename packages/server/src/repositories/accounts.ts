import {
  type Account,
  type AccountUpdate,
  DEFAULT_INVOICE_PREFIX,
  DEFAULT_LATE_USAGE,
  DEFAULT_NET_TERMS_DAYS,
} from "@billing/shared";
import { type Db, ObjectId } from "mongodb";
import { iso, toObjectId } from "../db/ids.js";
import { DEFAULT_CURRENCY } from "../domain/money/currency.js";

type Settings = Pick<
  Account,
  | "invoicePrefix"
  | "legalName"
  | "address"
  | "taxId"
  | "email"
  | "defaultTaxRateCodes"
  | "defaultCurrency"
  | "netTermsDays"
  | "autoCollect"
  | "dunning"
  | "lateUsage"
>;

/** Settings are stored only once set: accounts made before they existed read with the defaults. */
interface AccountDoc extends Partial<Settings> {
  _id: ObjectId;
  name: string;
  createdAt: Date;
  /** A test account's clock (services/billing/test-clock/): set once, moved forward by advances only, kept. */
  testClock?: StoredTestClock;
  /**
   * Set (never unset) before the account's first contract with `billingThresholds` is stored: ingestion evaluates
   * threshold billing only for accounts that have it (docs/decisions.md, "Threshold billing").
   */
  thresholdBilling?: true;
}

/** What each authenticated call reads of its account, in one read (middleware/test-clock.ts). */
export interface CallAccountFacts {
  testClock: StoredTestClock | undefined;
  thresholdBilling: boolean;
  /** The account itself (undefined when there is none): the call's work reads it from here (billing-clock.ts). */
  account: Account | undefined;
}

/** A test account's clock: its billing time, and the target of an advance that answered `hasMore`. */
export interface StoredTestClock {
  at: Date;
  advancingTo?: Date;
}

const toAccount = ({
  _id,
  name,
  createdAt,
  invoicePrefix,
  defaultCurrency,
  netTermsDays,
  testClock,
  autoCollect,
  lateUsage,
  // Internal (ingestion's gate of threshold billing): never part of the account as the API shows it.
  thresholdBilling: _thresholdBilling,
  ...settings
}: AccountDoc): Account => ({
  id: _id.toHexString(),
  name,
  createdAt: iso(createdAt),
  invoicePrefix: invoicePrefix ?? DEFAULT_INVOICE_PREFIX,
  defaultCurrency: defaultCurrency ?? DEFAULT_CURRENCY,
  netTermsDays: netTermsDays ?? DEFAULT_NET_TERMS_DAYS,
  autoCollect: autoCollect ?? true,
  lateUsage: lateUsage ?? DEFAULT_LATE_USAGE,
  ...settings,
  ...(testClock && {
    testClock: {
      at: iso(testClock.at),
      ...(testClock.advancingTo && { advancingTo: iso(testClock.advancingTo) }),
    },
  }),
});

/** What a document says of its seller: the account's legal name (else its name), address, tax id and email. */
export interface Seller {
  name: string;
  address?: Account["address"];
  taxId?: string;
  email?: string;
}

export const sellerOf = (account: Account): Seller => ({
  name: account.legalName ?? account.name,
  ...(account.address && { address: account.address }),
  ...(account.taxId !== undefined && { taxId: account.taxId }),
  ...(account.email !== undefined && { email: account.email }),
});

export function createAccountRepository(db: Db) {
  const accounts = db.collection<AccountDoc>("accounts");
  return {
    async ensureIndexes() {
      // The threshold catch-up's walk of the accounts that bill thresholds (thresholdBillingAfter), in id order.
      await accounts.createIndex({ thresholdBilling: 1, _id: 1 });
    },

    /** With `testClockAt`, a test account whose clock starts then. */
    async create(name: string, testClockAt?: Date): Promise<Account> {
      const doc: AccountDoc = {
        _id: new ObjectId(),
        name,
        createdAt: new Date(),
        ...(testClockAt && { testClock: { at: testClockAt } }),
      };
      await accounts.insertOne(doc);
      return toAccount(doc);
    },

    async get(accountId: string): Promise<Account | undefined> {
      const _id = toObjectId(accountId);
      const doc = _id && (await accounts.findOne({ _id }));
      return doc ? toAccount(doc) : undefined;
    },

    /** Sets the fields given, unsets those given as null; undefined when there is no such account. */
    async update(accountId: string, changes: AccountUpdate): Promise<Account | undefined> {
      const _id = toObjectId(accountId);
      if (!_id) return undefined;
      const { testClock, ...settings } = changes;
      const given = [
        ...Object.entries(settings).filter(([, value]) => value !== undefined),
        ...(testClock ? [["testClock", { at: new Date(testClock.at) }]] : []),
      ];
      const $set = Object.fromEntries(given.filter(([, value]) => value !== null));
      const $unset = Object.fromEntries(
        given.filter(([, value]) => value === null).map(([field]) => [field, "" as const]),
      );
      const doc = await accounts.findOneAndUpdate(
        { _id },
        { ...(Object.keys($set).length > 0 && { $set }), ...(Object.keys($unset).length > 0 && { $unset }) },
        { returnDocument: "after" },
      );
      return doc ? toAccount(doc) : undefined;
    },

    /** A test account's clock, or undefined for a live account (or none). */
    async testClockOf(accountId: string): Promise<StoredTestClock | undefined> {
      const _id = toObjectId(accountId);
      return (_id && (await accounts.findOne({ _id }, { projection: { testClock: 1 } })))?.testClock ?? undefined;
    },

    /** The account's test clock and whether it bills thresholds: the one read of the account every call makes. */
    async callFactsOf(accountId: string): Promise<CallAccountFacts> {
      const _id = toObjectId(accountId);
      // The whole (small) document: a billing run's pass reads the account's settings, one read fewer per call.
      const doc = _id && (await accounts.findOne({ _id }));
      return {
        testClock: doc?.testClock ?? undefined,
        thresholdBilling: doc?.thresholdBilling === true,
        account: doc ? toAccount(doc) : undefined,
      };
    },

    /** Marks the account as billing thresholds (idempotent): before a contract with `billingThresholds` is stored. */
    async markThresholdBilling(accountId: string): Promise<void> {
      const _id = toObjectId(accountId);
      if (_id) await accounts.updateOne({ _id, thresholdBilling: { $ne: true } }, { $set: { thresholdBilling: true } });
    },

    /**
     * Moves a test account's clock to `at` (`advancingTo`: the target of an advance that is not done). Only the
     * holder of the clock's lease (repositories/test-clock-leases.ts) calls it: one writer at a time.
     */
    async moveTestClock(accountId: string, at: Date, advancingTo?: Date): Promise<void> {
      await accounts.updateOne(
        { _id: new ObjectId(accountId), testClock: { $exists: true } },
        { $set: { testClock: { at, ...(advancingTo && { advancingTo }) } } },
      );
    },

    async exists(accountId: string): Promise<boolean> {
      const _id = toObjectId(accountId);
      return _id !== undefined && (await accounts.countDocuments({ _id }, { limit: 1 })) > 0;
    },

    /** Which of these accounts (at most 200) are test accounts: the billing scheduler's one read for a tick. */
    async withTestClock(accountIds: string[]): Promise<Set<string>> {
      const ids = accountIds.flatMap((id) => toObjectId(id) ?? []);
      if (ids.length === 0) return new Set();
      const found = await accounts
        .find({ _id: { $in: ids }, testClock: { $exists: true } }, { projection: { _id: 1 } })
        .toArray();
      return new Set(found.map(({ _id }) => _id.toHexString()));
    },

    /** Every account's id, for operator jobs that cover all accounts. */
    async *ids(): AsyncGenerator<string> {
      for await (const { _id } of accounts.find({}, { projection: { _id: 1 } }).sort({ _id: 1 }))
        yield _id.toHexString();
    },

    /** Up to `limit` account ids after `afterId` (from the first when absent), in id order: a page of a walk. */
    async idsAfter(afterId: string | undefined, limit: number): Promise<string[]> {
      const filter = afterId === undefined ? {} : { _id: { $gt: new ObjectId(afterId) } };
      const page = await accounts
        .find(filter, { projection: { _id: 1 } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return page.map(({ _id }) => _id.toHexString());
    },

    /**
     * Up to `limit` accounts that bill thresholds after `afterId` (from the first when absent), in id order, with
     * whether each runs on a test clock: a page of the threshold catch-up's walk
     * (services/billing/threshold-catch-up.ts).
     */
    async thresholdBillingAfter(
      afterId: string | undefined,
      limit: number,
    ): Promise<{ id: string; testClock: boolean }[]> {
      const filter = { thresholdBilling: true as const, ...(afterId && { _id: { $gt: new ObjectId(afterId) } }) };
      const page = await accounts
        .find(filter, { projection: { _id: 1, testClock: 1 } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return page.map(({ _id, testClock }) => ({ id: _id.toHexString(), testClock: testClock !== undefined }));
    },

    /** Every account, oldest first, read as the caller iterates (operator listings). */
    async *list(): AsyncGenerator<Account> {
      for await (const doc of accounts.find({}).sort({ _id: 1 })) yield toAccount(doc);
    },

    async isEmpty(): Promise<boolean> {
      return (await accounts.countDocuments({}, { limit: 1 })) === 0;
    },
  };
}
