import { type Db, MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { lastOfEach } from "../src/db/last-of-each.js";
import { createRepositories } from "../src/repositories/index.js";
import { startTestServer, type TestServer } from "./support/server.js";

/**
 * Document numbers on a sharded cluster (issue 48): a number's race is decided by its slot's `_id`
 * (`documentNumbers`, sharded on hashed `_id`), a document's by its attempts' `_id` (`documentNumberAttempts`, keyed by
 * account, series and hashed document), so neither needs a unique index the key cannot prefix. Two instances (two
 * clients, each with its repositories) claim at once: no two documents with one number, no document with two, no gap.
 */
let server: TestServer;
/** A client of the test's own: the second instance, and what stages an old database (no shape of the service's). */
let raw: MongoClient;
let rawDb: Db;
beforeAll(async () => {
  server = await startTestServer();
  raw = await MongoClient.connect(inject("mongodbUri"));
  rawDb = raw.db(server.service.db.databaseName);
});
afterAll(async () => {
  await raw.close();
  await server.close();
});

const instances = () => [createRepositories(server.service.db), createRepositories(rawDb)] as const;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);
const slotsOf = (accountId: string) => rawDb.collection("documentNumbers").find({ accountId }).sort({ n: 1 }).toArray();

describe("claiming document numbers on two instances at once", () => {
  it("10 documents, each claimed 3 times at once over 2 instances: numbers 1 to 10, one per document", async () => {
    const accountId = "acc_numbers_race";
    const [one, two] = instances();
    const documents = range(1, 10).map((index) => `doc_${index}`);
    const claims = documents.flatMap((documentId, index) =>
      range(0, 2).map(async (repeat) => {
        const { documentNumbers } = (index + repeat) % 2 === 0 ? one : two;
        const { n } = await documentNumbers.claim({ accountId, series: "INV", documentId, prefix: "INV" });
        return [documentId, n] as const;
      }),
    );
    const answers = await Promise.all(claims);
    // Every claim of one document answers one number; the 10 documents hold 1…10, each once.
    const byDocument = new Map<string, Set<number>>();
    for (const [documentId, n] of answers) {
      byDocument.set(documentId, (byDocument.get(documentId) ?? new Set()).add(n));
    }
    expect([...byDocument.values()].map((numbers) => numbers.size)).toEqual(Array(10).fill(1));
    expect([...byDocument.values()].map((numbers) => [...numbers][0]).sort((a, b) => a! - b!)).toEqual(range(1, 10));
    // Stored: 10 slots, 1…10, each held by the document that answers it.
    const slots = await slotsOf(accountId);
    expect(slots.map(({ n }) => n)).toEqual(range(1, 10));
    for (const { n, documentId } of slots) expect(byDocument.get(documentId)).toEqual(new Set([n]));
    // The other instance reads the same number back.
    expect(await two.documentNumbers.of(accountId, "INV", "doc_3")).toEqual({
      n: [...byDocument.get("doc_3")!][0],
      number: `INV-${String([...byDocument.get("doc_3")!][0]).padStart(6, "0")}`,
    });
  });

  it("a billing batch (claimMany), lone claims on the other instance: 1 to 9, no gap; 3 commands a batch", async () => {
    const accountId = "acc_numbers_batch";
    const [one, two] = instances();
    const batch = range(1, 6).map((index) => `inv_${index}`);
    const alone = range(7, 9).map((index) => `inv_${index}`);
    const [claimed, ...lone] = await Promise.all([
      one.documentNumbers.claimMany({ accountId, series: "INV", documentIds: batch, prefix: "INV" }),
      ...alone.map((documentId) => two.documentNumbers.claim({ accountId, series: "INV", documentId, prefix: "INV" })),
    ]);
    // The batch's documents that lost a number to a lone claim claim alone (as withNumbersClaimed does).
    const rest = batch.filter((documentId) => !claimed.has(documentId));
    const again = await Promise.all(
      rest.map((documentId) => one.documentNumbers.claim({ accountId, series: "INV", documentId, prefix: "INV" })),
    );
    const numbers = [...claimed.values(), ...lone, ...again].map(({ n }) => n).sort((a, b) => a - b);
    expect(numbers).toEqual(range(1, 9));
    expect((await slotsOf(accountId)).map(({ n }) => n)).toEqual(range(1, 9));

    // A batch's cost: the series' last (unless the pass knows it), its first attempts, their slots; whatever its size.
    const watched = new MongoClient(inject("mongodbUri"), { monitorCommands: true });
    const commands: string[] = [];
    watched.on("commandStarted", ({ commandName }) => commands.push(commandName));
    try {
      const { documentNumbers } = createRepositories((await watched.connect()).db(server.service.db.databaseName));
      const next = await documentNumbers.claimMany({
        accountId,
        series: "INV",
        documentIds: range(10, 29).map((index) => `inv_${index}`),
        prefix: "INV",
      });
      // 20 invoices: 3 commands (2 before attempts: the last, one insert), 0.15 a document.
      expect(commands).toEqual(["find", "insert", "insert"]);
      expect([...next.values()].map(({ n }) => n)).toEqual(range(10, 29));
      const guesses = lastOfEach();
      guesses.remember(`${accountId}:INV`, 29);
      commands.length = 0;
      await documentNumbers.claimMany({ accountId, series: "INV", documentIds: ["inv_30"], prefix: "INV", guesses });
      expect(commands).toEqual(["insert", "insert"]);
    } finally {
      await watched.close();
    }
  });
});

describe("the migration of numbers stored before attempts (claimStoredNumbers)", () => {
  it("reads old numbers meanwhile, gives each its attempt page by page, then drops the old unique ones", async () => {
    const accountId = "acc_numbers_old";
    const numbers = rawDb.collection<{ _id: string }>("documentNumbers");
    // As an old database stored them: 3 numbers, both races on unique indexes, the migration not begun.
    await numbers.createIndex({ accountId: 1, series: 1, n: 1 }, { unique: true });
    await numbers.createIndex({ accountId: 1, series: 1, documentId: 1 }, { unique: true });
    const claimedAt = new Date("2024-01-01T00:00:00Z");
    await numbers.insertMany(
      range(1, 3).map((n) => ({
        _id: `${accountId}:INV:${n}`,
        ...{ accountId, series: "INV", n, documentId: `old_${n}`, prefix: "OLD", claimedAt },
      })),
    );
    await rawDb.collection("documentNumber_migrations").deleteMany({});
    const { documentNumbers } = createRepositories(server.service.db);
    const claim = (documentId: string) =>
      documentNumbers.claim({ accountId, series: "INV", documentId, prefix: "NEW" });
    // Before the migration: an old document keeps its number; a new one takes the next (the old indexes still hold).
    expect(await claim("old_2")).toEqual({ n: 2, number: "OLD-000002" });
    expect(await claim("new_4")).toEqual({ n: 4, number: "NEW-000004" });

    let steps = 0;
    while ((await documentNumbers.claimStoredNumbers()) > 0) steps += 1;
    expect(steps).toBeGreaterThanOrEqual(1);
    expect(await rawDb.collection("documentNumber_migrations").findOne({})).toMatchObject({ done: true });
    // Every stored number has its document's attempt; the old unique indexes are gone (the key can be `_id`).
    const attempts = await rawDb.collection("documentNumberAttempts").find({ accountId }).sort({ n: 1 }).toArray();
    expect(attempts.map(({ documentId, n }) => [documentId, n])).toEqual([
      ["old_1", 1],
      ["old_2", 2],
      ["old_3", 3],
      ["new_4", 4],
    ]);
    const names = (await numbers.indexes()).map(({ name }) => name);
    expect(names).not.toContain("accountId_1_series_1_n_1");
    expect(names).not.toContain("accountId_1_series_1_documentId_1");

    // After it: old numbers read from their attempts, by a fresh instance too; the sequence goes on with no gap.
    const fresh = createRepositories(rawDb).documentNumbers;
    expect(await fresh.of(accountId, "INV", "old_3")).toEqual({ n: 3, number: "OLD-000003" });
    expect(await claim("old_1")).toEqual({ n: 1, number: "OLD-000001" });
    expect(await claim("new_5")).toEqual({ n: 5, number: "NEW-000005" });
    expect(await documentNumbers.claimStoredNumbers()).toBe(0);
  });
});
