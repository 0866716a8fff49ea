import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { MongoClient, ObjectId } from "mongodb";
import { describe, expect, inject, it } from "vitest";
import { watchEveryClient } from "../src/db/connect.js";
import { databasesRoutedByAccount } from "../src/db/find-owned.js";
import { readIndexReport } from "../src/db/index-report.js";
import { type IndexDeclaration, indexesOfCommand } from "../src/db/query-shapes.js";
import { checkPlan, keyNow, requestScatters, scalingTable } from "../src/db/shard-check.js";
import { SHARD_PLAN } from "../src/db/shard-plan.js";
import { isTargeted, routingOf, uniqueHolds } from "../src/db/shard-routing.js";
import { keyKeepsPlan, RACE_DECIDED_BY_ID, shardingRefusal } from "../src/db/sharding.js";
import { createRepositories } from "../src/repositories/index.js";
import { useTestServer } from "./support/harness.js";

/** Collections whose lookups by `_id` carry the key's fields on a cluster (routedById), checked below. */
const ROUTED = ["invoiceChanges", "contractTransitions", "reservations"];
const SCALING_DOC = new URL("../../../docs/scaling.md", import.meta.url);

/** The indexes the repositories declare when a service starts, read from the driver's commands (as the proof does). */
const declared: IndexDeclaration[] = [];
watchEveryClient((client) =>
  client.on("commandStarted", ({ commandName, command }) => {
    if (commandName === "createIndexes") declared.push(...indexesOfCommand(command));
  }),
);
const server = useTestServer();

/**
 * The shard-key plan (src/db/shard-plan.ts) checked against the code: the unique indexes the repositories declare and
 * the query shapes the whole suite sends, as the index proof captured them (docs/indexes.md, `pnpm check:indexes`).
 */
describe("the shard-key plan against the captured indexes and query shapes", () => {
  const { shapes, indexes } = readIndexReport();
  const findings = checkPlan(shapes, indexes);

  it("read the capture: hundreds of shapes and every collection's indexes", () => {
    expect(shapes.length).toBeGreaterThan(250);
    expect(indexes.filter(({ unique }) => unique).length).toBeGreaterThan(10);
    expect(findings.unplanned).toEqual([]);
  });

  it("reads the indexes a starting service declares: the capture's unique ones, every collection planned", () => {
    expect(server.service.db.databaseName).toBeTruthy();
    const text = ({ collection, name }: IndexDeclaration) => `${collection} ${name}`;
    const unique = (list: IndexDeclaration[]) =>
      list
        .filter((index) => index.unique)
        .map(text)
        .sort();
    expect(unique(declared).length).toBeGreaterThan(10);
    expect(unique(declared)).toEqual(unique(indexes));
    expect(checkPlan([], declared).unplanned).toEqual([]);
    // In any order: a starting service declares its indexes concurrently.
    expect(checkPlan([], declared).uniqueNotPrefixed.sort()).toEqual([...findings.uniqueNotPrefixed].sort());
  });

  it("prefixes every unique index by its collection's key: no move is pending", () => {
    // Document numbers' and invoices' places moved into _id-keyed claims (issue 48): nothing is pending.
    expect(findings.uniqueNotPrefixed).toEqual([]);
    for (const problem of findings.uniqueNotPrefixed) expect(SHARD_PLAN[problem.split(" ")[0]!]?.pending).toBeDefined();
    // Until then, the key a cluster has now prefixes every unique index of theirs.
    for (const index of indexes.filter(({ unique }) => unique)) {
      const entry = SHARD_PLAN[index.collection]!;
      expect(uniqueHolds(index, keyNow(entry)), `${index.collection} ${index.name}`).toBe(true);
    }
  });

  it("splits every collection that grows with one account: no key is accountId alone", () => {
    expect(findings.accountAlone).toEqual([]);
    const tenant = Object.entries(SHARD_PLAN).filter(([, { tenant }]) => tenant);
    expect(tenant.length).toBeGreaterThan(30);
    for (const [name, { key }] of tenant) expect(key, name).not.toBe("unsharded");
  });

  it("lists, with its reason, every shape that would go to more than one shard; none listed stale", () => {
    const unlisted = findings.scatters.filter(({ listed }) => !listed);
    expect(unlisted.map(({ collection, shape }) => `${collection} ${shape}`)).toEqual([]);
    expect(findings.stale).toEqual([]);
    // The honest count of request-time shapes that still scatter (docs/scaling.md): it may only go down, but for a new
    // filter of an account-wide list (each shard reads at most the page): 98, then 100 with `GET /audit-log?action=`
    // (its first page and the next, by `_id`), then 101 with `GET /reports/mrr?customerId=` (the MRR ledger is keyed
    // by `_id` alone; one customer's live curves, as the account's are read), then 102 with the revenue report's
    // `unbilled` (a page of at most 50 live contracts, as the contracts list reads them), then 103 with the customer
    // stream's open reservations (a customer's chains cannot be named before they are read; at most 500 per shard),
    // then 109 with `GET /invoices?issuedFrom&issuedTo` (the account's list and total within an issue date's bounds,
    // of the account or one customer) and `GET /reports/collections` (an account-wide sum by currency and window),
    // then 111 with a billing run's one look for drafts and invoices to number (its `$or`'s two branches), which
    // spares a call with neither the three reads of them that scatter too, then 114 with the reports' closed months
    // (the collections' and revenue's entries recorded after a month's cut, added to its closing; the MRR report's
    // usages of the window's cycles, with and without their end's bound) — the closing's own reads are background.
    // Then 108: an invoice's writes by id (and a batch's reads of its invoices) carry the contract, a recurring grant's
    // its customer, from the document the writer read (routed); then 102: a billing run's own reads of invoices are
    // background, as its reads of every other collection (re-listed, not re-routed); then 101 and 99: a customer's name
    // (checked, looked up) and aliases (checked, listed) go through their claims and `_id` once the upkeep has claimed
    // every stored one (the reads by name or alias until then are listed `migrating`, not request time); then 98: a
    // recurring grant's reads in a cancellation carry the customer of the entry that names it; then 99 with MRR's
    // closed months (the contracts with an MRR ledger entry recorded since the window's first cut); then 98: a series'
    // last number is routed (documentNumbers keyed by account and series); then 97: a customer's open reservations are
    // read through its openings (by customer, one shard) and by chain once the openings' migration is done; then 96:
    // an invoice by id reads its contract's pointer (`invoiceContracts`, by `_id`), then the invoice with its key; then
    // 95: a grant by id (a void, a recurring grant's cancel) its customer's pointer (`creditGrantCustomers`).
    expect(requestScatters(findings).length).toBeLessThanOrEqual(95);
  });

  it("sends no request-time shape to every shard: at most to the shards of one account's chunks", () => {
    // An endpoint's deliveries carry the key's account and endpoint (`{ accountId, endpointId, messageId: hashed }`),
    // a series' last number its whole key, a customer's stream its openings' key: none is `every` (issue 48). (The
    // stream's read by customer before the openings' migration is done is, listed `migrating`: then never.)
    const everywhere = requestScatters(findings).filter(({ routing }) => routing === "every");
    expect(everywhere.map(({ collection, shape }) => `${collection} ${shape}`)).toEqual([]);
  });

  it("routes the hot paths to one shard: ingestion, usage rollups, measurements, the ledger", () => {
    const routed = (collection: string, text: string) => {
      const shape = shapes.find((candidate) => candidate.collection === collection && candidate.text === text);
      expect(shape, `${collection} ${text}`).toBeDefined();
      return isTargeted(routingOf(shape!.filter, SHARD_PLAN[collection]!.key));
    };
    expect(routed("usage_rollups", "find {accountId: equality, alias: in, day: range, name: equality}")).toBe(true);
    expect(
      routed(
        "measurements",
        "findAndModify {accountId: equality, customerId: equality, day: equality, meterId: equality}",
      ),
    ).toBe(true);
    expect(routed("credit_entries", "find {accountId: equality, customerId: equality} sort {seq: -1}")).toBe(true);
    expect(routed("invoiceChanges", "find {accountId: equality, invoiceId: equality, n: range} sort {n: 1}")).toBe(
      true,
    );
  });

  it("names each collection's repository, and plans every collection whose _id decides a race", () => {
    for (const [name, { repository }] of Object.entries(SHARD_PLAN))
      expect(existsSync(new URL(`../src/repositories/${repository}.ts`, import.meta.url)), name).toBe(true);
    for (const name of RACE_DECIDED_BY_ID) expect(SHARD_PLAN[name], name).toBeDefined();
  });

  it("is the table docs/scaling.md shows", async () => {
    const doc = await readFile(SCALING_DOC, "utf8");
    expect(doc, "run `pnpm --filter @billing/server docs:scaling`").toContain(scalingTable(findings).join("\n"));
  });
});

describe("lookups by _id on a cluster (routedById)", () => {
  it("carry the key's fields there, so that mongos routes them; elsewhere they stay _id alone", async () => {
    // A client of its own on the service's database, its commands watched.
    const client = new MongoClient(inject("mongodbUri"), { monitorCommands: true });
    const filters: { collection: string; filter: Record<string, unknown> }[] = [];
    client.on("commandStarted", ({ commandName, command }) => {
      if (commandName === "find") filters.push({ collection: command.find, filter: command.filter });
      if (commandName === "update")
        for (const { q } of command.updates) filters.push({ collection: command.update, filter: q });
    });
    const db = (await client.connect()).db(server.service.db.databaseName);
    const repositories = createRepositories(db);
    const lookups = async () => {
      filters.length = 0;
      await repositories.invoiceChanges.withChangesPast([{ id: "inv_a", changeCount: 1 }]);
      await repositories.contractTransitions.behind([{ id: "ctr_a", version: 3 }]);
      await repositories.contractTransitions.behind([
        { id: "ctr_a", version: 3 },
        { id: "ctr_b", version: 1 },
      ]);
      await repositories.reservations.get("acc_a", `${"c".repeat(24)}_7`);
      return filters.filter(({ collection }) => ROUTED.includes(collection));
    };
    /** Point writes by `_id` (deletes, an upsert), watched like the lookups. */
    const writes: { collection: string; filter: Record<string, unknown> }[] = [];
    client.on("commandStarted", ({ commandName, command }) => {
      if (commandName === "delete")
        for (const { q } of command.deletes) writes.push({ collection: command.delete, filter: q });
      if (commandName === "update" && command.update === "invoice_collections")
        for (const { q } of command.updates) writes.push({ collection: command.update, filter: q });
    });
    const releases = async () => {
      writes.length = 0;
      const done = await repositories.contractChangesInFlight.announce("acc_a", "ctr_a");
      await done();
      const claim = { _id: new ObjectId(), accountId: "acc_a", transactionId: "tx_a" };
      await repositories.payments.releaseTransaction(claim);
      // An upsert, which a cluster refuses unless it names the whole shard key.
      const due = { _id: "inv_a", accountId: "acc_a", customerId: "cus_a", dueDate: new Date() };
      await repositories.invoiceCollections.wake(due, new Date(), new Date());
      return writes.map(({ collection, filter }) => ({ collection, fields: Object.keys(filter).sort() }));
    };
    expect((await lookups()).map(({ filter }) => Object.keys(filter))).toEqual([["_id"], ["_id"], ["_id"], ["_id"]]);
    expect(await releases()).toEqual([
      { collection: "contractChangesInFlight", fields: ["_id"] },
      { collection: "payment_transactions", fields: ["_id"] },
      { collection: "invoice_collections", fields: ["_id"] },
    ]);
    databasesRoutedByAccount.add(db.databaseName);
    try {
      expect((await lookups()).map(({ filter }) => filter)).toEqual([
        { _id: { $in: ["inv_a:2"] }, invoiceId: { $in: ["inv_a"] } },
        { _id: "ctr_a:4", contractId: "ctr_a" },
        { _id: { $in: ["ctr_a:4", "ctr_b:2"] }, contractId: { $in: ["ctr_a", "ctr_b"] } },
        { _id: `${"c".repeat(24)}_7`, chain: "c".repeat(24) },
      ]);
      expect(await releases()).toEqual([
        { collection: "contractChangesInFlight", fields: ["_id", "accountId", "contractId"] },
        { collection: "payment_transactions", fields: ["_id", "accountId", "transactionId"] },
        { collection: "invoice_collections", fields: ["_id", "accountId"] },
      ]);
    } finally {
      databasesRoutedByAccount.delete(db.databaseName);
      await client.close();
    }
    for (const collection of [...ROUTED, "contractChangesInFlight", "payment_transactions"])
      expect(SHARD_PLAN[collection]?.routedLookups, collection).toBe(true);
  });
});

describe("routing a shape under a key (how mongos targets it)", () => {
  const key = [
    ["accountId", 1],
    ["customerId", "hashed"],
  ] as const;
  const split: [string, 1 | "hashed"][] = key.map(([field, kind]) => [field, kind]);

  it("routes equality or $in on every key field, scatters within the account otherwise", () => {
    expect(routingOf({ accountId: "equality", customerId: "equality" }, split)).toBe("routed");
    expect(routingOf({ accountId: "equality", customerId: "in", seq: "range" }, split)).toBe("routed");
    expect(routingOf({ accountId: "equality" }, split)).toBe("account");
    expect(routingOf({ accountId: "equality", customerId: "range" }, split)).toBe("account");
    expect(routingOf({ createdAt: "range" }, split)).toBe("every");
    expect(routingOf({ createdAt: "range" }, "unsharded")).toBe("routed");
  });

  it("targets a range on a ranged key field to that range's chunks", () => {
    expect(
      routingOf({ accountId: "equality", day: "range" }, [
        ["accountId", 1],
        ["day", 1],
      ]),
    ).toBe("range");
  });

  it("holds a unique index only when the key's field names prefix it", () => {
    const unique = (...fields: string[]) => ({ key: fields.map((field): [string, 1] => [field, 1]) });
    expect(uniqueHolds(unique("accountId", "customerId", "seq"), split)).toBe(true);
    expect(uniqueHolds(unique("accountId", "seq"), split)).toBe(false);
    expect(uniqueHolds(unique("accountId", "ref"), [["accountId", "hashed"]])).toBe(true);
  });
});

describe("the start-up check against the plan", () => {
  const cluster = (...collections: [string, Record<string, unknown>][]) => ({
    sharded: true,
    shardedCollections: collections.map(([_id, key]) => ({ _id: `billing.${_id}`, key })),
  });

  it("starts on the plan's keys, on an earlier plan's { accountId: 1 } (a prefix, refined in place)", () => {
    const ok = cluster(
      ["measurements", { accountId: 1, customerId: 1 }],
      ["credit_entries", { accountId: 1 }],
      ["events", { accountId: 1, ref: "hashed" }],
      ["invoices", { accountId: 1 }],
      ["webhookMessages", { _id: "hashed" }],
    );
    expect(shardingRefusal("billing", ok)).toBeUndefined();
    expect(keyKeepsPlan("events", [["accountId", "hashed"]])).toBe(true);
  });

  it("refuses each collection sharded against the plan, naming it, its key and the plan's", () => {
    const refusal = shardingRefusal(
      "billing",
      cluster(
        ["events", { accountId: 1, timestamp: 1 }],
        ["measurements", { accountId: 1, meterId: 1 }],
        ["tokens", { hash: "hashed" }],
        ["invoices", { accountId: 1 }],
      ),
    );
    expect(refusal).toContain(
      'events (sharded on {"accountId":1,"timestamp":1}) instead of { accountId: 1, ref: "hashed" }',
    );
    expect(refusal).toContain('measurements (sharded on {"accountId":1,"meterId":1}) instead of ');
    expect(refusal).toContain("tokens (sharded on");
    expect(refusal).not.toContain("invoices");
  });
});
