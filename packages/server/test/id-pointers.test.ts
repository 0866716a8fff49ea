import { MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { databasesRoutedByAccount } from "../src/db/find-owned.js";
import { toObjectId } from "../src/db/ids.js";
import { createRepositories } from "../src/repositories/index.js";
import { billingAccount } from "./support/billing.js";
import { insertInvoice, invoiceDraft } from "./support/invoices.js";
import { startTestServer, type TestServer } from "./support/server.js";

/**
 * A lookup by id through a pointer (db/id-pointers.ts): an invoice on a cluster keyed `{ accountId, contractId }`
 * (its pointer `invoiceContracts`, written with the invoice, names its contract), a grant on one keyed `{ accountId,
 * customerId }` (`creditGrantCustomers`, its customer): two routed commands, not one to every shard holding the
 * account (issue 48). Elsewhere one command by `_id`. Documents stored before pointers get theirs from the upkeep
 * worker (bounded, resumable); until then a lookup without a pointer asks the account's shards.
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

describe("a grant by id, through its customer's pointer", () => {
  it("is two routed reads on a cluster (a void, a cancel name the entry alone); the upkeep notes grants", async () => {
    const account = await billingAccount(server);
    // 25.00 granted, then 10.00 more: two grants, two pointers.
    const first = (await account.grant(25)).entry;
    await account.grant(10);
    const pointers = db().collection("creditGrantCustomers");
    expect(await pointers.findOne({ _id: toObjectId(first.id) as never })).toMatchObject({
      accountId: account.accountId,
      customerId: account.customerId,
    });
    const repositories = createRepositories(db());
    const entry = () => repositories.credits.entry(account.accountId, first.id);
    expect(await findsOf(entry)).toEqual([{ collection: "credit_entries", fields: ["_id"] }]);
    databasesRoutedByAccount.add(db().databaseName);
    try {
      expect(await findsOf(entry)).toEqual([
        { collection: "creditGrantCustomers", fields: ["_id"] },
        { collection: "credit_entries", fields: ["_id", "accountId", "customerId"] },
      ]);
      expect(await entry()).toMatchObject({ id: first.id, type: "Grant" });
      await pointers.deleteMany({});
      await db().collection("credit_migrations").deleteMany({});
      expect((await findsOf(entry)).map(({ fields }) => fields)).toEqual([["_id"], ["_id", "accountId"]]);
      await server.service.upkeep.tick();
      await server.service.upkeep.tick();
      expect(await db().collection("credit_migrations").findOne({})).toMatchObject({ done: true });
      expect(await pointers.countDocuments({ accountId: account.accountId })).toBe(2);
    } finally {
      databasesRoutedByAccount.delete(db().databaseName);
    }
    // Through the API, as before: the 25.00 grant voided.
    expect((await server.rest("POST", `/credits/${first.id}/void`, { token: account.token })).status).toBe(201);
  });
});
