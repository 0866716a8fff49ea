import { MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { databasesRoutedByAccount } from "../src/db/find-owned.js";
import { toObjectId } from "../src/db/ids.js";
import { createRepositories } from "../src/repositories/index.js";
import { insertInvoice, invoiceDraft } from "./support/invoices.js";
import { startTestServer, type TestServer } from "./support/server.js";

/**
 * An invoice by id on a cluster keyed `{ accountId, contractId }`: its pointer (`invoiceContracts`, by `_id`, written
 * before the invoice) names its contract, so the lookup is two routed commands, not one to every shard holding the
 * account (issue 48). Elsewhere it stays one command by `_id`. Invoices stored before pointers get theirs from the
 * upkeep worker (bounded, resumable); until then a lookup without a pointer asks the account's shards.
 */
let server: TestServer;
/** A client of the test's own: its commands are watched, and what it stages is no shape of the service. */
let raw: MongoClient;
beforeAll(async () => {
  server = await startTestServer();
  raw = new MongoClient(inject("mongodbUri"), { monitorCommands: true });
  await raw.connect();
});
afterAll(async () => {
  await raw.close();
  await server.close();
});

const db = () => raw.db(server.service.db.databaseName);

/** The filters of the finds the test's own client sends while `read` runs, by collection. */
async function findsOf(read: () => Promise<unknown>) {
  const finds: { collection: string; fields: string[] }[] = [];
  const watch = ({ commandName, command }: { commandName: string; command: Record<string, any> }) => {
    if (commandName === "find") finds.push({ collection: command.find, fields: Object.keys(command.filter).sort() });
  };
  raw.on("commandStarted", watch);
  try {
    await read();
  } finally {
    raw.off("commandStarted", watch);
  }
  return finds;
}

describe("an invoice by id, through its contract's pointer", () => {
  it("is two routed reads on a cluster, one by _id elsewhere; a stored invoice's pointer comes by upkeep", async () => {
    const { accountId, token } = await server.newAccount();
    const draft = invoiceDraft();
    const { invoice } = await insertInvoice(server, accountId, draft);
    const pointers = db().collection("invoiceContracts");
    expect(await pointers.findOne({ _id: toObjectId(invoice.id) as never })).toMatchObject({
      accountId,
      contractId: draft.contractId,
    });

    const repositories = createRepositories(db());
    const get = (account = accountId) => repositories.invoices.get(account, invoice.id);
    expect(await findsOf(() => get())).toEqual([{ collection: "invoices", fields: ["_id"] }]);
    databasesRoutedByAccount.add(db().databaseName);
    try {
      let found: unknown;
      expect(await findsOf(async () => (found = await get()))).toEqual([
        { collection: "invoiceContracts", fields: ["_id"] },
        { collection: "invoices", fields: ["_id", "accountId", "contractId"] },
      ]);
      expect(found).toMatchObject({ id: invoice.id, contractId: draft.contractId });
      // Another account's id: its pointer says so, and nothing more is read.
      expect(await get("acc_other")).toBeUndefined();

      // An invoice stored before pointers: read from the account's shards until the upkeep noted it.
      await pointers.deleteMany({});
      await db().collection("invoice_migrations").deleteMany({});
      expect(await findsOf(() => get())).toEqual([
        { collection: "invoiceContracts", fields: ["_id"] },
        { collection: "invoices", fields: ["_id", "accountId"] },
      ]);
      await server.service.upkeep.tick();
      await server.service.upkeep.tick();
      expect(await db().collection("invoice_migrations").findOne({})).toMatchObject({ done: true });
      expect(await pointers.countDocuments({})).toBe(1);
      expect((await findsOf(() => get())).map(({ fields }) => fields)).toEqual([
        ["_id"],
        ["_id", "accountId", "contractId"],
      ]);
    } finally {
      databasesRoutedByAccount.delete(db().databaseName);
    }
    // Through the API, as before.
    expect((await server.rest("GET", `/invoices/${invoice.id}`, { token })).body.invoice.id).toBe(invoice.id);
  });
});
