import { compactListTotals } from "@billing/server";
import {
  type CommandStartedEvent,
  type CommandSucceededEvent,
  type Document,
  type MongoClient,
  ObjectId,
} from "mongodb";
import { withMonitoredDatabase } from "../in-process-database.js";
import { formatCount, log, progress } from "../progress.js";

export interface TotalsResult {
  engine: string;
  /** Per account: its customers, and what one page's `total` read before any count was made and after. */
  lists: {
    customers: number;
    before: TotalReads;
    after: TotalReads;
    /** The compactions that counted the list (one: the bench counts a list at once, a tick 1,000 at a time). */
    compactions: number;
  }[];
  /** Customers stored after the compactions (not yet settled): the tail every page counts. */
  tail: number;
}

/** What one page's total read: count documents returned, and the index keys its counts matched (their result). */
interface TotalReads {
  countDocuments: number;
  countedKeys: number;
  ms: number;
}

const SIZES = [1_000, 10_000, 100_000];
const TAIL = 5;
const BATCH = 1_000;
/** Stored an hour ago: settled, so that the compactions count them (LIST_COUNT_SETTLE_MS is 10 minutes). */
const STORED_AT = () => new Date(Date.now() - 3_600_000);

/**
 * Section 13: the documents behind a list page's `total` (GET /customers), for accounts of 1,000, 10,000 and 100,000
 * customers, before any count exists (the total counts every customer) and after the scheduler's compactions counted
 * them (one count document, plus the customers stored since). Read through command monitoring: the count documents
 * the driver gets back, and the result of each count command (the index keys it matches, on MongoDB). In-process, on
 * a database of its own; the customers are inserted raw, in the repository's shape, an hour old.
 */
export async function benchTotals(sizes = SIZES): Promise<TotalsResult> {
  const reads: TotalReads = { countDocuments: 0, countedKeys: 0, ms: 0 };
  const kinds = new Map<number, "counts" | "count">();
  const watch = (client: MongoClient) => {
    client.on("commandStarted", ({ requestId, commandName, command }: CommandStartedEvent) => {
      if (commandName === "find" && command.find === "list_counts") kinds.set(requestId, "counts");
      const pipeline = (command.pipeline ?? []) as Document[];
      if (commandName === "aggregate" && pipeline.some((stage) => "$group" in stage)) kinds.set(requestId, "count");
    });
    client.on("commandSucceeded", ({ requestId, reply }: CommandSucceededEvent) => {
      const kind = kinds.get(requestId);
      kinds.delete(requestId);
      const batch = ((reply as { cursor?: { firstBatch?: Document[] } }).cursor?.firstBatch ?? []) as Document[];
      if (kind === "counts") reads.countDocuments += batch.length;
      if (kind === "count") reads.countedKeys += (batch[0]?.n as number | undefined) ?? 0;
    });
  };
  return withMonitoredDatabase("totals", watch, async (db, repositories, engine) => {
    const customers = db.collection("customers");
    const readTotal = async (accountId: string, expected: number): Promise<TotalReads> => {
      Object.assign(reads, { countDocuments: 0, countedKeys: 0 });
      const started = performance.now();
      const page = await repositories.customers.list(accountId, { limit: 100 });
      const ms = performance.now() - started;
      if (page.total !== expected) throw new Error(`total ${page.total}, expected ${expected}`);
      return { countDocuments: reads.countDocuments, countedKeys: reads.countedKeys, ms };
    };

    const lists: TotalsResult["lists"] = [];
    for (const size of sizes) {
      const accountId = `bench-totals-${size}`;
      for (let stored = 0; stored < size; stored += BATCH) {
        const at = STORED_AT();
        await customers.insertMany(
          Array.from({ length: Math.min(BATCH, size - stored) }, (_, offset) => ({
            _id: new ObjectId(),
            accountId,
            name: `customer-${stored + offset}`,
            createdAt: at,
            updatedAt: at,
          })),
        );
        progress(`totals: ${formatCount(stored + BATCH)} / ${formatCount(size)} customers`);
      }
      const before = await readTotal(accountId, size);
      let compactions = 0;
      // The whole list in one step: on FerretDB each step decodes the collection (a tick counts 1,000 per step).
      while ((await compactListTotals(repositories, accountId, new Date(), { step: size })) > 0) {
        compactions += 1;
        progress(`totals: ${formatCount(size)} customers, compaction ${compactions}`);
      }
      for (let index = 0; index < TAIL; index += 1) {
        await repositories.customers.create(accountId, { name: `recent-${index}` });
      }
      lists.push({ customers: size, before, after: await readTotal(accountId, size + TAIL), compactions });
    }
    const result: TotalsResult = { engine, lists, tail: TAIL };
    log(`totals: ${JSON.stringify(result)}`);
    return result;
  });
}

export function totalsMarkdown({ engine, lists, tail }: TotalsResult): string[] {
  return [
    `Database: ${engine}. \`GET /customers?limit=100\` (the repository's list), one account per size; ${tail} ` +
      "customers stored after the compactions, not yet settled.",
    "",
    "| customers | before counts: count documents / keys counted / ms | compactions | after: count documents / " +
      "keys counted / ms |",
    "|---:|---:|---:|---:|",
    ...lists.map(
      ({ customers, before, after, compactions }) =>
        `| ${formatCount(customers)} | ${before.countDocuments} / ${formatCount(before.countedKeys)} / ` +
        `${before.ms.toFixed(0)} | ${compactions} | ` +
        `**${after.countDocuments} / ${formatCount(after.countedKeys)}** / ${after.ms.toFixed(0)} |`,
    ),
  ];
}
