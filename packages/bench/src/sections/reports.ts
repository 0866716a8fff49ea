import {
  balancesAsOf,
  closeAccountMonths,
  collectionsReport,
  mrrReport,
  type Repositories,
  revenueReport,
} from "@billing/server";
import type { CommandStartedEvent, CommandSucceededEvent, Document, MongoClient } from "mongodb";
import { withMonitoredDatabase } from "../in-process-database.js";
import { formatCount, log, progress } from "../progress.js";

export interface ReportsResult {
  engine: string;
  accounts: {
    invoices: number;
    /** Months closed for the account (each report and currency counts), and the time it took. */
    closed: { months: number; ms: number };
    /** Each report's read, from the ledgers alone (before closing) and with the closed months. */
    reads: { report: string; ledger: ReportReads; closed: ReportReads }[];
  }[];
}

/** What one report read: the documents its commands got back (ledgers and closings), and its time. */
interface ReportReads {
  documents: number;
  ms: number;
}

const SIZES = [10_000, 100_000];
const MONTHS = 24;
const BATCH = 1_000;
const READ = new Set(["revenueSchedules", "receivableEntries", "collectionEntries", "mrrLedger", "reportClosings"]);
const monthStart = (month: number) => new Date(Date.UTC(2024, month, 1));
/**
 * Closes the data's months (to Dec 2025) as of `now`, summing every entry written so far (seconds old): the wait
 * after a month's end is measured from the same `now` the closing is given, or December would be a millisecond short.
 */
const closeDataMonths = (now: Date) => ({
  afterMonthEndMs: now.getTime() - monthStart(MONTHS).getTime(),
  recordMarginMs: 0,
});
const NOTHING_UNBILLED = async () => ({ lines: [], contracts: 0, truncated: false });

/**
 * Section 18: the documents behind each report of the close (issue 49) for accounts of 10,000 and 100,000 invoices
 * (24 monthly invoices of a contract each, Jan 2024 – Dec 2025, every one paid at its month's end but the last two
 * months'), read by the services' own report reads for December 2025 and for 2025 by month: `GET /reports/revenue`,
 * `GET /reports/receivables` (as of Jan 1, 2026), `GET /reports/collections` and `GET /reports/mrr`. Each is read
 * twice: from the ledgers alone, then after the upkeep worker's closing of every ended month
 * (services/reports/closing.ts, called here at once). Counted by command monitoring: the documents the
 * driver gets back from the ledgers and the closings. The ledgers are written through their repositories, as
 * invoices' finalizations and payments write them. In-process, on a database of its own.
 */
export async function benchReports(sizes = SIZES): Promise<ReportsResult> {
  let documents = 0;
  const watched = new Set<number>();
  const watch = (client: MongoClient) => {
    client.on("commandStarted", ({ requestId, commandName, command }: CommandStartedEvent) => {
      const collection = commandName === "getMore" ? command.collection : command[commandName];
      if (["find", "aggregate", "getMore"].includes(commandName) && READ.has(collection)) watched.add(requestId);
    });
    client.on("commandSucceeded", ({ requestId, reply }: CommandSucceededEvent) => {
      if (!watched.delete(requestId)) return;
      const cursor = (reply as { cursor?: { firstBatch?: Document[]; nextBatch?: Document[] } }).cursor;
      documents += (cursor?.firstBatch ?? cursor?.nextBatch ?? []).length;
    });
  };
  return withMonitoredDatabase("reports", watch, async (_db, repositories, engine) => {
    const accounts: ReportsResult["accounts"] = [];
    for (const size of sizes) {
      const accountId = `bench-reports-${size}`;
      const scope = { repositories, accountId };
      await seed(repositories, accountId, size);
      const read = async (work: () => Promise<unknown>): Promise<ReportReads> => {
        documents = 0;
        const started = performance.now();
        await work();
        return { documents, ms: performance.now() - started };
      };
      const [december, january] = [monthStart(MONTHS - 1), monthStart(MONTHS)];
      const window = (from: Date, to: Date) => ({ from: from.toISOString(), to: to.toISOString(), currency: "USD" });
      const reports: [string, () => Promise<unknown>][] = [
        [
          "revenue, December",
          () => revenueReport(scope, { ...window(december, january), interval: "MONTH" }, NOTHING_UNBILLED),
        ],
        [
          "revenue, 2025 by month",
          () => revenueReport(scope, { ...window(monthStart(12), january), interval: "MONTH" }, NOTHING_UNBILLED),
        ],
        ["receivables, as of Jan 1", () => balancesAsOf(scope, "USD", january)],
        ["collections, December", () => collectionsReport(scope, window(december, january))],
        ["collections, 2025", () => collectionsReport(scope, window(monthStart(12), january))],
        ["MRR, December", () => mrrReport(scope, window(december, january))],
        ["MRR, 2025 by month", () => mrrReport(scope, window(monthStart(12), january))],
      ];
      const ledger = [];
      for (const [, work] of reports) ledger.push(await read(work));
      progress(`reports: closing the months of ${formatCount(size)} invoices`);
      const started = performance.now();
      const now = new Date();
      const months = await closeAccountMonths(scope, now, closeDataMonths(now), 10_000);
      const closed = { months, ms: performance.now() - started };
      const reads: ReportsResult["accounts"][number]["reads"] = [];
      for (const [index, [report, work]] of reports.entries())
        reads.push({ report, ledger: ledger[index] as ReportReads, closed: await read(work) });
      accounts.push({ invoices: size, closed, reads });
    }
    const result: ReportsResult = { engine, accounts };
    log(`reports: ${JSON.stringify(result)}`);
    return result;
  });
}

/** `size` invoices of size / 24 contracts, one a month each, with their ledgers' entries, 1,000 a write. */
async function seed(repositories: Repositories, accountId: string, size: number) {
  const contracts = Math.max(1, Math.floor(size / MONTHS));
  for (let contract = 0; contract < contracts; contract += 1) {
    const contractId = `c${contract}`;
    const customerId = `cust${contract % 1000}`;
    await repositories.mrrLedger.recordCurve(accountId, "USD", {
      contractId,
      customerId,
      seq: 0,
      points: [{ from: monthStart(0), micros: 100_000_000, live: true }],
    });
  }
  for (let done = 0; done < size; done += BATCH) {
    const invoices = Array.from({ length: Math.min(BATCH, size - done) }, (_, offset) => done + offset);
    const of = (index: number) => {
      const month = index % MONTHS;
      return {
        invoiceId: `inv${index}`,
        contractId: `c${Math.floor(index / MONTHS) % contracts}`,
        customerId: `cust${Math.floor(index / MONTHS) % 1000}`,
        start: monthStart(month),
        end: monthStart(month + 1),
        paid: month < MONTHS - 2,
      };
    };
    await repositories.revenueSchedules.recordMany(
      invoices.map(of).map(({ invoiceId, customerId, start, end }) => ({
        id: `${invoiceId}:1`,
        accountId,
        invoiceId,
        customerId,
        currency: "USD",
        billedAt: end,
        end,
        lines: [{ mode: "EVEN" as const, start, end, micros: 100_000_000 }],
      })),
    );
    await repositories.receivableEntries.recordMany(
      invoices.map(of).flatMap(({ invoiceId, customerId, end, paid }) => {
        const entry = { accountId, invoiceId, customerId, currency: "USD", dueDate: end };
        const finalized = { ...entry, n: 1, at: end, micros: 100_000_000 as never };
        return paid ? [finalized, { ...entry, n: 2, at: end, micros: -100_000_000 as never }] : [finalized];
      }),
    );
    await repositories.collectionEntries.recordMany(
      invoices
        .map(of)
        .filter(({ paid }) => paid)
        .map(({ invoiceId, customerId, end }) => ({
          accountId,
          invoiceId,
          customerId,
          currency: "USD",
          n: 2,
          kind: "PAYMENT" as const,
          at: end,
          micros: 100_000_000 as never,
        })),
    );
    await repositories.mrrLedger.recordUsages(
      accountId,
      invoices.map(of).map(({ invoiceId, contractId, end }) => ({
        currency: "USD",
        usage: { contractId, invoiceId, cycleEnd: end, micros: 10_000_000, voided: false },
      })),
    );
    progress(`reports: ${formatCount(done + invoices.length)} / ${formatCount(size)} invoices`);
  }
}

export function reportsMarkdown({ engine, accounts }: ReportsResult): string[] {
  return [
    `Database: ${engine}. An account of 24 monthly invoices a contract (Jan 2024 – Dec 2025); the documents each ` +
      "report's reads got back (ledgers and closings), and their time, from the ledgers alone, then with every ended " +
      "month closed.",
    "",
    ...accounts.map(
      ({ invoices, closed }) =>
        `${formatCount(invoices)} invoices: ${formatCount(closed.months)} months closed (4 reports) in ` +
        `${closed.ms.toFixed(0)} ms.`,
    ),
    "",
    "| invoices | report | ledger: documents / ms | closed months: documents / ms |",
    "|---:|---|---:|---:|",
    ...accounts.flatMap(({ invoices, reads }) =>
      reads.map(
        ({ report, ledger, closed }) =>
          `| ${formatCount(invoices)} | ${report} | ${formatCount(ledger.documents)} / ${ledger.ms.toFixed(0)} | ` +
          `${formatCount(closed.documents)} / ${closed.ms.toFixed(0)} |`,
      ),
    ),
  ];
}
