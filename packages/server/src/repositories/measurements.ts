import type { Measurement, MeasurementCreate } from "@billing/shared";
import { type Db, ObjectId } from "mongodb";
import { isDuplicateKeyError } from "../db/duplicate-key.js";
import { canonicalId } from "../db/ids.js";
import { type MeasurementDoc, storedValueMicros, toDay, toMeasurement } from "../presenters/stored-measurements.js";

/**
 * Two upserts of a new day can both miss the document and both insert; the unique index lets one win and the
 * other fail with a duplicate key, and retrying it then finds the winner's document and updates it.
 */
const MAX_UPSERT_ATTEMPTS = 5;

export function createMeasurementRepository(db: Db) {
  const measurements = db.collection<MeasurementDoc>("measurements");

  /** The measurements of customers' meters (one or `$in` each) over days, each with when it was last written. */
  function measuredRowsOf(
    accountId: string,
    customerId: string | { $in: string[] },
    meterId: string | { $in: string[] },
    fromDay: string,
    toDayExclusive: string,
  ): Promise<MeasuredRow[]> {
    return measurements
      .find({ accountId, customerId, meterId, day: { $gte: fromDay, $lt: toDayExclusive } }, { useBigInt64: true })
      .project<MeasuredRow>({ _id: 0, customerId: 1, meterId: 1, day: 1, valueMicros: 1, updatedAt: 1 })
      .toArray();
  }

  /** The measurements of a customer's meter (or meters: `$in`) over days, meter → day → micro-units. */
  async function measuredDays(
    accountId: string,
    customerId: string,
    meterId: string | { $in: string[] },
    fromDay: string,
    toDayExclusive: string,
  ) {
    const id = canonicalId(customerId);
    const byCustomer = byCustomerOf(await measuredRowsOf(accountId, id, meterId, fromDay, toDayExclusive));
    return byCustomer.get(id) ?? new Map<string, Map<string, bigint>>();
  }

  return {
    async ensureIndexes() {
      await measurements.createIndex({ accountId: 1, customerId: 1, meterId: 1, day: 1 }, { unique: true });
    },

    /**
     * Sets the value of the customer's meter on that day: creates the measurement, or replaces its value in place.
     * The caller has resolved `input.customerId` to a customer of the account.
     */
    async record(accountId: string, input: MeasurementCreate): Promise<Measurement> {
      const customerId = canonicalId(input.customerId);
      const key = { accountId, customerId, meterId: input.meterId, day: toDay(input.usageDate) };
      const valueMicros = storedValueMicros(input.value);
      for (let attempt = 1; ; attempt += 1) {
        const now = new Date();
        try {
          const doc = await measurements.findOneAndUpdate(
            key,
            { $set: { valueMicros, updatedAt: now }, $setOnInsert: { _id: new ObjectId(), createdAt: now } },
            { upsert: true, returnDocument: "after", useBigInt64: true },
          );
          if (!doc) throw new Error("upsert returned no document");
          return toMeasurement(doc);
        } catch (error) {
          if (!isDuplicateKeyError(error) || attempt >= MAX_UPSERT_ATTEMPTS) throw error;
        }
      }
    },

    /** One meter's measurements of a customer over [fromDay, toDayExclusive): day ("YYYY-MM-DD") → micro-units. */
    async byDay(
      accountId: string,
      customerId: string,
      meterId: string,
      fromDay: string,
      toDayExclusive: string,
    ): Promise<Map<string, bigint>> {
      return (await measuredDays(accountId, customerId, meterId, fromDay, toDayExclusive)).get(meterId) ?? new Map();
    },

    /** Several meters' measurements of a customer over [fromDay, toDayExclusive), in one read: meter → byDay's map. */
    async byDayOfMeters(
      accountId: string,
      customerId: string,
      meterIds: readonly string[],
      fromDay: string,
      toDayExclusive: string,
    ): Promise<Map<string, Map<string, bigint>>> {
      if (meterIds.length === 0) return new Map();
      const meterId = meterIds.length === 1 ? (meterIds[0] as string) : { $in: [...meterIds] };
      return measuredDays(accountId, customerId, meterId, fromDay, toDayExclusive);
    },

    /**
     * Several customers' measurements of these meters over [fromDay, toDayExclusive) in one read (a billing batch's),
     * for their usage reads to be answered from in memory: byDayOfMeters of a read it covers.
     */
    async snapshot(accountId: string, read: MeasurementRead) {
      const { customerIds, meterIds, fromDay, toDayExclusive } = read;
      if (customerIds.length === 0 || meterIds.length === 0) return undefined;
      const customers = { $in: customerIds.map(canonicalId) };
      const meters = { $in: [...meterIds] };
      return measurementSnapshot(read, await measuredRowsOf(accountId, customers, meters, fromDay, toDayExclusive));
    },

    /**
     * When each measurement of a customer's meters over [fromDay, toDayExclusive) was last written: late usage's
     * signal (services/billing/late-usage.ts), read light by the index of byDayOfMeters.
     */
    async updatedAtOfDays(
      accountId: string,
      customerId: string,
      meterIds: readonly string[],
      fromDay: string,
      toDayExclusive: string,
    ): Promise<{ day: string; updatedAt: Date }[]> {
      if (meterIds.length === 0) return [];
      const meterId = meterIds.length === 1 ? (meterIds[0] as string) : { $in: [...meterIds] };
      return measurements
        .find({ accountId, customerId: canonicalId(customerId), meterId, day: { $gte: fromDay, $lt: toDayExclusive } })
        .project<{ day: string; updatedAt: Date }>({ _id: 0, day: 1, updatedAt: 1 })
        .toArray();
    },
  };
}

/** What a batch's measurement read covers: these customers' meters over the UTC days [fromDay, toDayExclusive). */
export interface MeasurementRead {
  customerIds: readonly string[];
  meterIds: readonly string[];
  fromDay: string;
  toDayExclusive: string;
}

/** A measurement as a usage read takes it: its value, and when it was last written (late usage's signal). */
interface MeasuredRow {
  customerId: string;
  meterId: string;
  day: string;
  valueMicros: bigint;
  updatedAt: Date;
}

/** Measurements by customer → meter → day → micro-units. */
function byCustomerOf(rows: readonly MeasuredRow[]): Map<string, Map<string, Map<string, bigint>>> {
  const byCustomer = new Map<string, Map<string, Map<string, bigint>>>();
  for (const { customerId: customer, meterId: meter, day, valueMicros } of rows) {
    const byMeter = byCustomer.get(customer) ?? new Map<string, Map<string, bigint>>();
    const days = byMeter.get(meter) ?? new Map<string, bigint>();
    byMeter.set(meter, days.set(day, BigInt(valueMicros)));
    byCustomer.set(customer, byMeter);
  }
  return byCustomer;
}

function measurementSnapshot(read: MeasurementRead, rows: readonly MeasuredRow[]) {
  const customers = new Set(read.customerIds.map(canonicalId));
  const meters = new Set(read.meterIds);
  const byCustomer = byCustomerOf(rows);
  return {
    covers: (customerId: string, meterIds: readonly string[], fromDay: string, toDayExclusive: string) =>
      customers.has(canonicalId(customerId)) &&
      meterIds.every((meter) => meters.has(meter)) &&
      fromDay >= read.fromDay &&
      toDayExclusive <= read.toDayExclusive,
    /** byDayOfMeters of a read it covers. */
    byDayOfMeters(customerId: string, meterIds: readonly string[], fromDay: string, toDayExclusive: string) {
      const byMeter = byCustomer.get(canonicalId(customerId));
      const within = (days: Map<string, bigint>) =>
        new Map([...days].filter(([day]) => day >= fromDay && day < toDayExclusive));
      return new Map(
        meterIds.flatMap((meter) =>
          byMeter?.has(meter) ? [[meter, within(byMeter.get(meter) as Map<string, bigint>)] as const] : [],
        ),
      );
    },
    /** updatedAtOfDays of a read it covers. */
    updatedAtOfDays(customerId: string, meterIds: readonly string[], fromDay: string, toDayExclusive: string) {
      const customer = canonicalId(customerId);
      const asked = new Set(meterIds);
      return rows
        .filter((row) => row.customerId === customer && asked.has(row.meterId))
        .filter(({ day }) => day >= fromDay && day < toDayExclusive)
        .map(({ day, updatedAt }) => ({ day, updatedAt }));
    },
  };
}
export type MeasurementSnapshot = ReturnType<typeof measurementSnapshot>;
