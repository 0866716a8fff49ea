import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createExportWritings, writeNextBatch } from "../src/services/exports/exports.js";
import { billingAccount, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { pyarrowPython, readParquet } from "./support/pyarrow.js";

/**
 * Exports of payments, the credit ledger and events, and the Parquet format (issue 49), read back by an independent
 * reader (pyarrow) and summed against what the API answers.
 */
const server = useTestServer();

/** Where the files fetched are written for pyarrow to read. */
let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "exports-parquet-"));
  pyarrowPython(); // made once (a pip install on a new machine), before the tests' own time starts
}, 300_000);

const cents = (amounts: number[]) => amounts.reduce((sum, amount) => sum + Math.round(amount * 100), 0);
/** A DECIMAL(18, 6) sum as pyarrow prints it, in cents. */
const decimalCents = (sum: string | null) => Math.round(Number(sum) * 100);

describe("payments, ledger and events exports; Parquet read by pyarrow", () => {
  it("exports the account's payments, credit entries and events of the window, summing to the API's", async () => {
    const account = await billingAccount(server);
    // 20.00 of credits granted before billing pay the first invoice in part.
    await account.grant(20);
    const contract = await account.contract({
      startDate: "2026-01-01T00:00:00Z",
      products: [{ displayName: "Platform, Café", scheduling: monthly(1), pricing: { type: "FLAT", price: 43.5 } }],
    });
    await account.run("2026-04-01T00:00:00Z");
    // Jan, Feb, Mar at 43.50; the credits pay 20.00 of January's: its amount 23.50, in all 110.50.
    const invoices = await account.invoices(contract.id);
    expect(invoices.map((invoice) => invoice.amount)).toEqual([23.5, 43.5, 43.5]);
    const [january, february] = invoices;
    expect(january.amountDue).toBe(23.5);
    const pay = (invoiceId: string, body: Record<string, unknown>) =>
      account.post(`/invoices/${invoiceId}/payments`, { amount: 1, ...body }, 201);
    await pay(january.id, { amount: 23.5, transactionId: 'tx-1, "wire"' });
    await pay(february.id, { amount: 10, paymentMethod: "card" });
    await pay(february.id, { amount: 0.01, note: "=cent" });
    // Payments: 23.50 + 10.00 + 0.01 = 33.51, as the invoices' payment lists say.
    const listed = [
      ...(await server.rest("GET", `/invoices/${january.id}/payments`, { token: account.token })).body.payments,
      ...(await server.rest("GET", `/invoices/${february.id}/payments`, { token: account.token })).body.payments,
    ];
    expect(cents(listed.map((payment: { amount: number }) => payment.amount))).toBe(3_351);

    // Events: 1,203 in March (three batches of 500 for the worker), 2 outside the window (Feb 28, Apr 1).
    const event = (index: number, timestamp: string) => ({
      ref: `e-${index}`,
      name: "api_call",
      timestamp,
      customerAlias: "alias-1",
      data: { region: index % 2 ? "eu" : "us", bytes: String(index) },
    });
    const march = Array.from({ length: 1_203 }, (_, index) =>
      event(index, new Date(Date.parse("2026-03-01T00:00:00Z") + index * 60_000).toISOString()),
    );
    const outside = [event(5_000, "2026-02-28T23:59:59Z"), event(5_001, "2026-04-01T00:00:00Z")];
    for (let start = 0; start < march.length; start += 500)
      await account.post("/events", { events: march.slice(start, start + 500) });
    await account.post("/events", { events: outside });

    const recent = { from: "2026-01-01T00:00:00Z", to: "2030-01-01T00:00:00Z" };
    const inMarch = { from: "2026-03-01T00:00:00Z", to: "2026-04-01T00:00:00Z" };
    const exportOf = async (body: Record<string, unknown>) => {
      const created = await server.rest("POST", "/exports", { token: account.token, body });
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      return created.body.export.id as string;
    };
    const paymentsCsv = await exportOf({ kind: "payments", format: "csv", ...recent });
    const paymentsParquet = await exportOf({ kind: "payments", format: "parquet", ...recent });
    const ledgerParquet = await exportOf({ kind: "ledger", format: "parquet", ...recent });
    const invoicesParquet = await exportOf({ kind: "invoices", format: "parquet", ...recent });
    const eventsNdjson = await exportOf({ kind: "events", format: "ndjson", ...inMarch });
    const eventsParquet = await exportOf({ kind: "events", format: "parquet", ...inMarch });
    const emptyParquet = await exportOf({
      kind: "payments",
      format: "parquet",
      from: "2020-01-01T00:00:00Z",
      to: recent.from,
    });

    // The events' Parquet written 400 events a batch, the payments' and the ledger's 2 a batch, each with a "crash"
    // after its first batch: the next writer resumes from the last chunk and the footer lists every row group once.
    const scope = { repositories: server.service.repositories, accountId: account.accountId, log: console as never };
    for (const [exportId, batchSize] of [
      [eventsParquet, 400],
      [paymentsParquet, 2],
      [ledgerParquet, 2],
    ] as const) {
      const stored = (await server.service.repositories.exports.get(account.accountId, exportId))!;
      const crashed = createExportWritings();
      expect(await writeNextBatch(scope as never, stored, crashed, batchSize)).toBe(true);
      await crashed.closeExcept(new Set()); // what a crash leaves is nothing of the process
      const resumed = (await server.service.repositories.exports.get(account.accountId, exportId))!;
      const writings = createExportWritings();
      while (await writeNextBatch(scope as never, resumed, writings, batchSize)) {
        // batch after batch
      }
    }
    await server.service.runExports();
    await server.service.runExports();

    const status = async (id: string) =>
      (await server.rest("GET", `/exports/${id}`, { token: account.token })).body.export;
    const fetchFile = (id: string) =>
      fetch(`${server.url}/exports/${id}/file`, { headers: { authorization: `Bearer ${account.token}` } });
    const parquetOf = async (id: string, values: string[] = []) => {
      const response = await fetchFile(id);
      expect(response.headers.get("content-type")).toBe("application/vnd.apache.parquet");
      const bytes = Buffer.from(await response.arrayBuffer());
      expect([bytes.subarray(0, 4).toString(), bytes.subarray(-4).toString()]).toEqual(["PAR1", "PAR1"]);
      const file = join(folder, `${id}.parquet`);
      await writeFile(file, bytes);
      return readParquet(file, values);
    };

    // Payments as CSV: three rows, 33.51, the transaction id with a comma and quotes whole, "=cent" not a formula.
    expect(await status(paymentsCsv)).toMatchObject({ status: "COMPLETED", rows: 3 });
    const csv = await (await fetchFile(paymentsCsv)).text();
    expect(csv).toContain('"tx-1, ""wire"""');
    expect(csv).toContain(",'=cent");
    // Payments as Parquet: the same three, amounts DECIMAL(18, 6) summing to 33.51, the invoice's currency on each.
    const payments = await parquetOf(paymentsParquet, ["currency", "invoiceId", "date"]);
    expect(payments.rows).toBe(3);
    expect(payments.types).toMatchObject({ amount: "decimal128(18, 6)", date: "timestamp[ms, tz=UTC]" });
    expect(decimalCents(payments.sums.amount!)).toBe(3_351);
    expect(payments.values.currency).toEqual(["USD", "USD", "USD"]);
    expect(payments.values.invoiceId).toEqual([january.id, february.id, february.id]);

    // Ledger: the grant (+20.00) and what paid January (−20.00): Σ 0.00 over as many entries as GET /credits lists.
    const entries = await account.ledger();
    const ledger = await parquetOf(ledgerParquet, ["type", "id"]);
    expect(ledger.rows).toBe(entries.length);
    expect(ledger.values.id).toEqual(entries.map((entry) => entry.id));
    expect(decimalCents(ledger.sums.amount!)).toBe(cents(entries.map((entry) => entry.amount)));
    expect(ledger.values.type).toContain("Grant");
    expect(decimalCents(ledger.sums.amount!)).toBe(0);

    // Invoices as Parquet: three, totals 110.50 = the API's, amounts due 110.50 − 33.51 paid = 76.99.
    const invoicesRead = await parquetOf(invoicesParquet, ["customerId"]);
    expect(invoicesRead.rows).toBe(3);
    expect(decimalCents(invoicesRead.sums.total!)).toBe(cents(invoices.map((invoice) => invoice.amount)));
    expect(decimalCents(invoicesRead.sums.total!)).toBe(11_050);
    expect(decimalCents(invoicesRead.sums.amountDue!)).toBe(7_699);

    // Events in March: the 1,203, none of the two outside, each once, as NDJSON and as Parquet (4 row groups of
    // 400, 400, 400 and 3 events); Σ data.bytes = 0 + 1 + … + 1202 = 1202 × 1203 / 2 = 723,003.
    expect(await status(eventsNdjson)).toMatchObject({ status: "COMPLETED", rows: 1_203 });
    const lines = (await (await fetchFile(eventsNdjson)).text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(new Set(lines.map((line) => line.ref))).toEqual(new Set(march.map((sent) => sent.ref)));
    expect(lines.reduce((sum, line) => sum + Number(JSON.parse(line.data).bytes), 0)).toBe(723_003);
    expect(await status(eventsParquet)).toMatchObject({ status: "COMPLETED", rows: 1_203 });
    const events = await parquetOf(eventsParquet, ["ref", "data"]);
    expect(events.rows).toBe(1_203);
    expect(new Set(events.values.ref)).toEqual(new Set(march.map((sent) => sent.ref)));
    expect(events.values.data!.reduce((sum, data) => sum + Number(JSON.parse(data!).bytes), 0)).toBe(723_003);

    // A window with no payments: a valid Parquet file of no rows, its columns typed.
    const empty = await parquetOf(emptyParquet);
    expect(empty).toMatchObject({ rows: 0, types: { amount: "decimal128(18, 6)" } });

    // Through tRPC too: a parquet export of events is taken as REST takes it.
    const viaTrpc = await account.trpc().exports.create.mutate({ kind: "events", format: "parquet", ...inMarch });
    expect(viaTrpc.export).toMatchObject({ kind: "events", format: "parquet", status: "PENDING" });
  });
});
