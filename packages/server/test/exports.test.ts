import type { CommandStartedEvent } from "mongodb";
import { describe, expect, it } from "vitest";
import { watchEveryClient } from "../src/db/connect.js";
import { csvField } from "../src/domain/exports/format.js";
import { createExportWritings, writeNextBatch } from "../src/services/exports/exports.js";
import { expectError } from "./support/assertions.js";
import { billingAccount, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/** Exports (issue 49): files a warehouse or a spreadsheet loads, whose sums equal what the API answers. */
const server = useTestServer();
/** Every command the service's clients send: what a batch of an export costs. */
const commands: CommandStartedEvent[] = [];
watchEveryClient((client) => client.on("commandStarted", (event) => commands.push(event)));

/** An RFC 4180 reader for the test (quoted fields, doubled quotes, CRLF records): the header's names → rows. */
function parseCsv(text: string): Record<string, string>[] {
  const records: string[][] = [];
  let field = "";
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") {
      record.push(field);
      field = "";
    } else if (char === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      field = "";
      record = [];
      i += 1;
    } else field += char;
  }
  const [header, ...rows] = records;
  return rows.map((row) => Object.fromEntries(header!.map((name, index) => [name, row[index] ?? ""])));
}

const cents = (amounts: number[]) => amounts.reduce((sum, amount) => sum + Math.round(amount * 100), 0);

describe("CSV fields (pure)", () => {
  it("quotes what RFC 4180 asks, doubles quotes, and keeps a spreadsheet from running a formula", () => {
    expect(csvField('Support, "Gold"')).toBe('"Support, ""Gold"""');
    expect(csvField("two\nlines")).toBe('"two\nlines"');
    expect(csvField("=SUM(A1)")).toBe("'=SUM(A1)");
    expect(csvField(-12.5)).toBe("-12.5");
    expect(csvField(null)).toBe("");
    expect(csvField("Café")).toBe("Café");
  });
});

describe("POST /exports", () => {
  it("exports invoices, lines, credit notes and revenue summing to the API's, resumed batch by batch", async () => {
    const account = await billingAccount(server);
    const gold = { displayName: 'Support, "Gold"', scheduling: monthly(1), pricing: { type: "FLAT", price: 31 } };
    const base = { displayName: "Platform", scheduling: monthly(1), pricing: { type: "FLAT", price: 12.5 } };
    const first = await account.contract({ startDate: "2026-01-01T00:00:00Z", products: [gold, base] });
    const second = await account.contract({ startDate: "2026-02-01T00:00:00Z", products: [base] });
    await account.run("2026-04-01T00:00:00Z");
    // First: Jan, Feb, Mar at 31.00 + 12.50 = 43.50; second: Feb, Mar at 12.50. Five invoices, 155.50 in all.
    const invoices = [...(await account.invoices(first.id)), ...(await account.invoices(second.id))];
    expect(invoices.map((invoice) => invoice.amount).sort()).toEqual([12.5, 12.5, 43.5, 43.5, 43.5]);
    const [january] = await account.invoices(first.id);
    await account.post("/credit-notes", { invoiceId: january.id, amount: 10, reason: "OTHER", refund: "OFFSET" }, 201);
    const window = { from: "2026-01-01T00:00:00Z", to: "2030-01-01T00:00:00Z" };

    const exportOf = async (body: Record<string, unknown>) => {
      const created = await server.rest("POST", "/exports", { token: account.token, body: { ...window, ...body } });
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      expect(created.body.export).toMatchObject({ status: "PENDING", rows: 0, ...body });
      return created.body.export.id as string;
    };
    const file = (id: string) =>
      fetch(`${server.url}/exports/${id}/file`, { headers: { authorization: `Bearer ${account.token}` } });

    const invoicesCsv = await exportOf({ kind: "invoices", format: "csv" });
    // Before the worker has written it, the file is a 409.
    expect((await file(invoicesCsv)).status).toBe(409);
    const linesCsv = await exportOf({ kind: "invoice_lines", format: "csv" });
    const notes = await exportOf({ kind: "credit_notes", format: "ndjson" });
    const revenue = await exportOf({ kind: "revenue", format: "ndjson" });
    // Revenue written two schedules a batch, with a "crash" after the first batch: a new writer resumes from the last
    // chunk, and the file is whole (each schedule once).
    const stored = (await server.service.repositories.exports.get(account.accountId, revenue))!;
    const scope = { repositories: server.service.repositories, accountId: account.accountId, log: console as never };
    expect(await writeNextBatch(scope as never, stored, createExportWritings(), 2)).toBe(true);
    const resumed = (await server.service.repositories.exports.get(account.accountId, revenue))!;
    const writings = createExportWritings();
    while (await writeNextBatch(scope as never, resumed, writings, 2)) {
      // batch after batch
    }
    await server.service.runExports();
    await server.service.runExports();

    const status = async (id: string) => (await server.rest("GET", `/exports/${id}`, { token: account.token })).body;
    // Invoices: one row each; totals 155.50, amounts due 155.50 − 10.00 credited = 145.50.
    expect(await status(invoicesCsv)).toMatchObject({ export: { status: "COMPLETED", rows: 5 } });
    const response = await file(invoicesCsv);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    // UTF-8 with its byte order mark (EF BB BF), which a decoder then drops.
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = parseCsv(new TextDecoder().decode(bytes));
    expect(rows.map((row) => row.id).sort()).toEqual(invoices.map((invoice) => invoice.id).sort());
    expect(cents(rows.map((row) => Number(row.total)))).toBe(15_550);
    expect(cents(rows.map((row) => Number(row.amountDue)))).toBe(14_550);
    // Lines: 3 × 2 + 2 × 1 = 8 rows; the name with a comma and quotes reads back whole; Σ line totals = Σ invoices.
    const lines = parseCsv(await (await file(linesCsv)).text());
    expect(lines).toHaveLength(8);
    expect(lines.filter((line) => line.name === 'Support, "Gold"')).toHaveLength(3);
    expect(cents(lines.map((line) => Number(line.total)))).toBe(15_550);
    // Credit notes: the one of 10.00, as NDJSON.
    const noteRows = (await (await file(notes)).text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(noteRows).toMatchObject([{ invoiceId: january.id, amount: 10, refund: "OFFSET" }]);
    // Revenue: every schedule line billed in the window, whose sum equals the report's billed over it: 155.50 of
    // invoices less the note's 10.00 = 145.50.
    const revenueRows = (await (await file(revenue)).text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect((await status(revenue)).export.rows).toBe(revenueRows.length);
    expect(new Set(revenueRows.map((row) => `${row.scheduleId}/${row.line}`)).size).toBe(revenueRows.length);
    const report = await server.rest(
      "GET",
      `/reports/revenue?from=${window.from}&to=2026-12-01T00:00:00Z&interval=MONTH&currency=USD`,
      { token: account.token },
    );
    const billed = cents(report.body.periods.map((period: { billed: number }) => period.billed));
    expect(cents(revenueRows.map((row) => row.amount))).toBe(billed);
    expect(billed).toBe(14_550);

    // Through the SDK's transport too: tRPC answers as REST.
    const viaTrpc = await account.trpc().exports.get.query({ exportId: invoicesCsv });
    expect(viaTrpc).toEqual(await status(invoicesCsv));
  });

  it("writes each event once when two writers race on an events export, the loser's open query dropped", async () => {
    const account = await billingAccount(server);
    const events = Array.from({ length: 7 }, (_, index) => ({
      ref: `race-${index}`,
      name: "api_call",
      timestamp: new Date(Date.parse("2026-03-01T00:00:00Z") + index * 60_000).toISOString(),
      customerAlias: "alias-1",
    }));
    await account.post("/events", { events });
    const body = { kind: "events", format: "ndjson", from: "2026-03-01T00:00:00Z", to: "2026-04-01T00:00:00Z" };
    const created = await server.rest("POST", "/exports", { token: account.token, body });
    const { repositories } = server.service;
    const exp = (await repositories.exports.get(account.accountId, created.body.export.id))!;
    const scope = { repositories, accountId: account.accountId, log: console as never };
    const [first, second] = [createExportWritings(), createExportWritings()];
    // Two events a batch. The first writer writes chunk 0 and keeps its query open after race-1; the second, from
    // chunk 0 on, writes chunk 1 (race-2, race-3). The first then reads race-2, race-3 again, loses chunk 1's insert
    // and drops its query; its next batch goes on from chunk 1: race-4, race-5, then race-6 (the end).
    expect(await writeNextBatch(scope as never, exp, first, 2)).toBe(true);
    expect(await writeNextBatch(scope as never, exp, second, 2)).toBe(true);
    expect(await writeNextBatch(scope as never, exp, first, 2)).toBe(true);
    expect(first.take(exp.id)).toBeUndefined();
    while (await writeNextBatch(scope as never, exp, first, 2)) {
      // batch after batch
    }
    const file = await fetch(`${server.url}/exports/${exp.id}/file`, {
      headers: { authorization: `Bearer ${account.token}` },
    });
    const refs = (await file.text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).ref);
    expect(refs).toEqual(events.map(({ ref }) => ref));
  });

  it("costs an events export's batch three commands whatever the events before it: no query per batch", async () => {
    const account = await billingAccount(server);
    const events = Array.from({ length: 12 }, (_, index) => ({
      ref: `cost-${index}`,
      name: "api_call",
      timestamp: new Date(Date.parse("2026-03-01T00:00:00Z") + index * 60_000).toISOString(),
      customerAlias: "alias-1",
    }));
    await account.post("/events", { events });
    const body = { kind: "events", format: "csv", from: "2026-03-01T00:00:00Z", to: "2026-04-01T00:00:00Z" };
    const created = await server.rest("POST", "/exports", { token: account.token, body });
    const { repositories } = server.service;
    const exp = (await repositories.exports.get(account.accountId, created.body.export.id))!;
    const scope = { repositories, accountId: account.accountId, log: console as never };
    const writings = createExportWritings();
    // Three events a batch: the first batch opens the query (and reads the last chunk: none), the fifth finds the
    // end; each batch between fetches the next three (getMore), inserts its chunk and notes the progress.
    const batches: string[][] = [];
    for (let more = true; more; ) {
      const from = commands.length;
      more = await writeNextBatch(scope as never, exp, writings, 3);
      batches.push(
        commands
          .slice(from)
          .map(({ commandName, command }) => `${commandName} ${command.collection ?? command[commandName]}`)
          .filter((name) => / (events|exportChunks|exports)$/.test(name)),
      );
    }
    expect(batches).toHaveLength(5);
    for (const batch of batches.slice(1, 4)) {
      expect(batch).toEqual(["getMore events", "insert exportChunks", "update exports"]);
    }
  });

  it("refuses an unknown kind or format and a bad window with 400 naming the field; 404 for no export", async () => {
    const account = await billingAccount(server);
    const post = (body: Record<string, unknown>) =>
      server.rest("POST", "/exports", {
        token: account.token,
        body: { kind: "invoices", from: "2026-01-01T00:00:00Z", to: "2026-02-01T00:00:00Z", format: "csv", ...body },
      });
    for (const [body, field] of [
      [{ format: "xlsx" }, "format"],
      [{ kind: "customers" }, "kind"],
      [{ to: "2025-01-01T00:00:00Z" }, "to"],
    ] as const) {
      const response = await post(body);
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues[0].path).toBe(field);
    }
    const missing = await server.rest("GET", "/exports/0123456789abcdef01234567", { token: account.token });
    expectError(missing, 404, "NOT_FOUND");
  });
});
