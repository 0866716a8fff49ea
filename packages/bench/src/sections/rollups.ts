import { compactUsageRollups, entitlementOfMeter, usageOf } from "@billing/server";
import { BSON, type CommandSucceededEvent, type MongoClient, ObjectId } from "mongodb";
import { storedEvent } from "../data.js";
import { withMonitoredDatabase } from "../in-process-database.js";
import { formatCount, log, progress } from "../progress.js";
import { ratio } from "../stats.js";

export interface RollupsResult {
  engine: string;
  /**
   * Per customer: its events in the month, the documents one usage read (pricing, GET /usage) was returned, and
   * those of one entitlement check (GET /customers/{id}/entitlements/{meterKey}) after compaction.
   */
  reads: {
    events: number;
    documentsBeforeCompaction: number;
    documentsAfterCompaction: number;
    /** BSON bytes of those documents: a rollup keeps no per-event property, so these stay flat too. */
    bytesAfterCompaction: number;
    ms: number;
    entitlementDocuments: number;
  }[];
  /** Ingestion through the repository (events + rollup partials) against a raw insertMany of the same events. */
  ingest: { batches: number; batchSize: number; repositoryMsPerBatch: number; rawMsPerBatch: number; ratio: number };
}

const ACCOUNT = "bench-rollups";
const EVENT_NAME = "bench.rollups";
const METER = "bench-rollups";
const BATCH = 1000;
/** The current UTC month: what an entitlement check reads (a customer with no contract is metered by the month). */
const THIS_MONTH = (() => {
  const now = new Date();
  return {
    from: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1),
    to: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1),
  };
})();
const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/**
 * A batch of one customer's events spread over this month, `n` from 1 to 10, a region and a request id of its own, as a
 * usage event carries: no meter reads the request id, so no rollup keeps it.
 */
function batchOf(alias: string, batch: number, perCustomer: number) {
  return Array.from({ length: BATCH }, (_, offset) => {
    const index = batch * BATCH + offset;
    const at = THIS_MONTH.from + Math.floor(((index + 0.5) / perCustomer) * (THIS_MONTH.to - THIS_MONTH.from));
    return {
      ref: `${alias}-${index}`,
      name: EVENT_NAME,
      customerAlias: alias,
      timestamp: new Date(at).toISOString(),
      data: { n: String((index % 10) + 1), region: index % 3 === 0 ? "eu" : "us", requestId: `${alias}-req-${index}` },
    };
  });
}

/**
 * Usage reads from rollups: the documents the driver returns to one usage read (what pricing an invoice does per
 * meter, and GET /usage) for a customer with 1,000 events in the month and one with 100,000 (`eventsOfCustomers`),
 * counted through command monitoring; and what ingestion pays for its partials, against the raw insertMany of the
 * same events (in the repository's shape) into a collection with the events' indexes, batch by batch in turn.
 * In-process, on a database of its own.
 */
export async function benchRollups(eventsOfCustomers = [1_000, 100_000]): Promise<RollupsResult> {
  let returned = 0;
  let returnedBytes = 0;
  const watch = (client: MongoClient) =>
    client.on("commandSucceeded", ({ reply }: CommandSucceededEvent) => {
      const cursor = (reply as { cursor?: { firstBatch?: BSON.Document[]; nextBatch?: BSON.Document[] } } | undefined)
        ?.cursor;
      const documents = cursor?.firstBatch ?? cursor?.nextBatch ?? [];
      returned += documents.length;
      for (const document of documents) returnedBytes += BSON.calculateObjectSize(document);
    });
  return withMonitoredDatabase("rollups", watch, async (db, repositories, engine) => {
    const raw = db.collection("raw_events");
    await raw.createIndex({ accountId: 1, ref: 1 }, { unique: true });
    await raw.createIndex({ accountId: 1, timestamp: 1, _id: 1 });
    await raw.createIndex({ accountId: 1, name: 1, timestamp: 1, _id: 1 });
    await raw.createIndex({ accountId: 1, name: 1, customerAlias: 1, timestamp: 1, _id: 1 });
    await repositories.meters.create(ACCOUNT, {
      key: METER,
      eventName: EVENT_NAME,
      aggregation: "SUM",
      valueProperty: "n",
    });

    const customers = eventsOfCustomers.map((events) => ({ events, alias: `customer-${events}`, id: "" }));
    let repositoryMs = 0;
    let rawMs = 0;
    let batches = 0;
    for (const customer of customers) {
      customer.id = (
        await repositories.customers.create(ACCOUNT, { name: customer.alias, aliases: [customer.alias] })
      ).id;
      for (let batch = 0; batch < customer.events / BATCH; batch += 1) {
        const events = batchOf(customer.alias, batch, customer.events);
        const batchId = new ObjectId();
        const rawDocs = events.map((event) => storedEvent(ACCOUNT, batchId, event, new Date()));
        const timeRepository = async () => {
          const started = performance.now();
          await repositories.events.ingest(ACCOUNT, events);
          repositoryMs += performance.now() - started;
        };
        const timeRaw = async () => {
          const started = performance.now();
          await raw.insertMany(rawDocs, { ordered: false });
          rawMs += performance.now() - started;
        };
        // In turn, each side first every other batch: neither gains from going second.
        for (const side of batch % 2 === 0 ? [timeRepository, timeRaw] : [timeRaw, timeRepository]) await side();
        batches += 1;
        progress(`rollups: ${formatCount(batches * BATCH)} events ingested`);
      }
    }

    const read = async (customerId: string) => {
      returned = 0;
      returnedBytes = 0;
      const started = performance.now();
      await usageOf(repositories, ACCOUNT, customerId, METER, dayOf(THIS_MONTH.from), dayOf(THIS_MONTH.to));
      return { documents: returned, bytes: returnedBytes, ms: performance.now() - started };
    };
    const before = [];
    for (const { id } of customers) before.push(await read(id));
    while ((await compactUsageRollups(repositories)) > 0) progress("rollups: compacting");
    const entitlementDocuments = async (customerId: string) => {
      returned = 0;
      await entitlementOfMeter({ repositories, accountId: ACCOUNT }, customerId, METER);
      return returned;
    };
    const reads = [];
    for (const [index, customer] of customers.entries()) {
      const after = await read(customer.id);
      const entitlement = await entitlementDocuments(customer.id);
      reads.push({
        events: customer.events,
        documentsBeforeCompaction: before[index]?.documents ?? 0,
        documentsAfterCompaction: after.documents,
        bytesAfterCompaction: after.bytes,
        ms: after.ms,
        entitlementDocuments: entitlement,
      });
    }
    const result: RollupsResult = {
      engine,
      reads,
      ingest: {
        batches,
        batchSize: BATCH,
        repositoryMsPerBatch: repositoryMs / batches,
        rawMsPerBatch: rawMs / batches,
        ratio: ratio(repositoryMs, rawMs),
      },
    };
    log(`rollups: ${JSON.stringify(result)}`);
    return result;
  });
}

export function rollupsMarkdown({ engine, reads, ingest }: RollupsResult): string[] {
  return [
    `Database: ${engine}. One SUM meter; events spread over this UTC month, ${ingest.batchSize} per batch, each with ` +
      "a request id of its own.",
    "",
    "| events of the customer in the period | documents returned to one usage read, partials waiting " +
      "| after compaction | their bytes | read ms after compaction | documents of one entitlement check |",
    "|---:|---:|---:|---:|---:|---:|",
    ...reads.map(
      (read) =>
        `| ${formatCount(read.events)} | ${formatCount(read.documentsBeforeCompaction)} | ` +
        `${formatCount(read.documentsAfterCompaction)} | ${formatCount(read.bytesAfterCompaction)} | ` +
        `${read.ms.toFixed(0)} | ${formatCount(read.entitlementDocuments)} |`,
    ),
    "",
    "| ingestion of one batch | ms |",
    "|---|---:|",
    `| events repository (events + rollup partials) | ${ingest.repositoryMsPerBatch.toFixed(1)} |`,
    `| raw insertMany of the same events | ${ingest.rawMsPerBatch.toFixed(1)} |`,
    `| ratio over ${formatCount(ingest.batches)} batches | ${ingest.ratio.toFixed(2)}× |`,
  ];
}
