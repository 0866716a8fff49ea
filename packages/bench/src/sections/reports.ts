import type { Repositories } from "@billing/server";
import type { CommandStartedEvent, CommandSucceededEvent, Document, MongoClient } from "mongodb";
import { withMonitoredDatabase } from "../in-process-database.js";
import { formatCount, log, progress } from "../progress.js";

export interface ReportsResult {
  engine: string;
  accounts: {
    invoices: number;
    /** Documents the report ledgers' reads returned, and what a December report reads of them. */
    revenue: ReportReads;
    receivables: ReportReads;
    mrr: ReportReads;
  }[];
}

/** What one report read: the ledger documents its commands returned, the rows it answered from, its time. */
interface ReportReads {
  documents: number;
  ms: number;
}

const SIZES = [10_000, 100_000];
const MONTHS = 24;
const BATCH = 1_000;
const LEDGERS = new Set(["revenueSchedules", "receivableEntries", "mrrLedger"]);
const monthStart = (month: number) => new Date(Date.UTC(2024, month, 1));

/**
 * Section 18: the documents behind each report of the close (issue 49) for accounts of 10,000 and 100,000 invoices
 * (24 monthly invoices of a contract each, Jan 2024 – Dec 2025, every one paid but the last two months'), read for
 * December 2025 by the repositories' report reads: `GET /reports/revenue` (the schedules reaching into the month),
 * `GET /reports/receivables` (the entries up to its end, summed by the database: the rows it returns) and
 * `GET /reports/mrr` (the curves live in the month, then those contracts' entries). Counted by command monitoring:
 * the documents the driver gets back from the three ledgers. The ledgers are written through their repositories,
 * as invoices' finalizations and payments write them. In-process, on a database of its own.
 */
export async function benchReports(sizes = SIZES): Promise<ReportsResult> {
  let documents = 0;
  const watched = new Set<number>();
  const watch = (client: MongoClient) => {
    client.on("commandStarted", ({ requestId, commandName, command }: CommandStartedEvent) => {
      const collection = commandName === "getMore" ? command.collection : command[commandName];
      if (["find", "aggregate", "getMore"].includes(commandName) && LEDGERS.has(collection)) watched.add(requestId);
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
      await seed(repositories, accountId, size);
      const read = async (work: () => Promise<unknown>): Promise<ReportReads> => {
        documents = 0;
        const started = performance.now();
        await work();
        return { documents, ms: performance.now() - started };
      };
      const [from, to] = [monthStart(MONTHS - 1), monthStart(MONTHS)];
      accounts.push({
        invoices: size,
        revenue: await read(() => repositories.revenueSchedules.inWindow(accountId, "USD", from, to)),
        receivables: await read(() => repositories.receivableEntries.balances(accountId, "USD", to)),
        mrr: await read(() => repositories.mrrLedger.inWindow(accountId, "USD", from, to)),
      });
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
    `Database: ${engine}. December 2025 of an account of 24 monthly invoices a contract (Jan 2024 – Dec 2025); the ` +
      "ledger documents each report's reads got back, and their time.",
    "",
    "| invoices | revenue: documents / ms | receivables: rows / ms | MRR: documents / ms |",
    "|---:|---:|---:|---:|",
    ...accounts.map(
      ({ invoices, revenue, receivables, mrr }) =>
        `| ${formatCount(invoices)} | ${formatCount(revenue.documents)} / ${revenue.ms.toFixed(0)} | ` +
        `${formatCount(receivables.documents)} / ${receivables.ms.toFixed(0)} | ` +
        `${formatCount(mrr.documents)} / ${mrr.ms.toFixed(0)} |`,
    ),
  ];
}
