import type { Alert, AlertPeriod } from "@billing/shared";
import { type Db, type Filter, ObjectId } from "mongodb";
import { findOwned } from "../db/find-owned.js";
import { toObjectId } from "../db/ids.js";
import { findPage, type PageRequest } from "../db/pagination.js";
import { type AlertDoc, storedThresholds, toAlert } from "../presenters/stored-alerts.js";

/** An alert as the service evaluates it: thresholds in micro-units. */
export interface StoredAlert {
  id: string;
  customerId: string | null;
  meterKey: string;
  thresholdsMicros: number[];
  period: AlertPeriod;
  sweptThroughCustomerId: string | null;
}

export interface NewAlert {
  customerId: string | null;
  meterKey: string;
  thresholds: number[];
  period: AlertPeriod;
}

const toStored = (doc: AlertDoc): StoredAlert => ({
  id: doc._id.toHexString(),
  customerId: doc.customerId,
  meterKey: doc.meterKey,
  thresholdsMicros: doc.thresholdsMicros,
  period: doc.period,
  sweptThroughCustomerId: doc.sweptThroughCustomerId,
});

export function createAlertRepository(db: Db) {
  const alerts = db.collection<AlertDoc>("alerts");

  return {
    async ensureIndexes() {
      await alerts.createIndex({ accountId: 1, _id: 1 });
      // Evaluation after ingestion: the alerts of the meters a batch touched.
      await alerts.createIndex({ accountId: 1, meterKey: 1, _id: 1 });
      // The sweep: the least recently swept alerts of an account first.
      await alerts.createIndex({ accountId: 1, sweptAt: 1, _id: 1 });
    },

    async count(accountId: string): Promise<number> {
      return alerts.countDocuments({ accountId });
    },

    async create(accountId: string, input: NewAlert): Promise<Alert> {
      const now = new Date();
      const doc: AlertDoc = {
        _id: new ObjectId(),
        accountId,
        customerId: input.customerId,
        meterKey: input.meterKey,
        thresholdsMicros: storedThresholds(input.thresholds),
        period: input.period,
        createdAt: now,
        sweptAt: now,
        sweptThroughCustomerId: null,
      };
      await alerts.insertOne(doc);
      return toAlert(doc);
    },

    async get(accountId: string, alertId: string): Promise<Alert | undefined> {
      const doc = await findOwned(alerts, accountId, toObjectId(alertId));
      return doc ? toAlert(doc) : undefined;
    },

    list(accountId: string, page: PageRequest) {
      return findPage(alerts, { accountId } as Filter<AlertDoc>, page, toAlert);
    },

    /** The alert as it was, once deleted; undefined when the account has no such alert. */
    async delete(accountId: string, alertId: string): Promise<Alert | undefined> {
      const doc = await findOwned(alerts, accountId, toObjectId(alertId));
      if (!doc) return undefined;
      await alerts.deleteOne({ _id: doc._id, accountId });
      return toAlert(doc);
    },

    /** The account's alerts on these meters (at most `limit`, the account's cap). */
    async ofMeters(accountId: string, meterKeys: string[], limit: number): Promise<StoredAlert[]> {
      if (meterKeys.length === 0) return [];
      const docs = await alerts
        .find({ accountId, meterKey: { $in: meterKeys } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toStored);
    },

    /** The account's `limit` least recently swept alerts. */
    async nextToSweep(accountId: string, limit: number): Promise<StoredAlert[]> {
      const docs = await alerts.find({ accountId }).sort({ sweptAt: 1, _id: 1 }).limit(limit).toArray();
      return docs.map(toStored);
    },

    /**
     * Records how far the sweep got. Two sweeps may both write: the last write wins, and the walk then repeats or
     * skips ahead by a few customers, which evaluation (idempotent) and the next walk make harmless.
     */
    async markSwept(accountId: string, alertId: string, throughCustomerId: string | null, at: Date) {
      const _id = toObjectId(alertId);
      if (!_id) return;
      await alerts.updateOne({ _id, accountId }, { $set: { sweptAt: at, sweptThroughCustomerId: throughCustomerId } });
    },
  };
}
