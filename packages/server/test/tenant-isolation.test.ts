import { randomBytes } from "node:crypto";
import { TRPCClientError } from "@trpc/client";
import type { AnyRouter } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "../src/routers/index.js";
import { billingAccount, committed, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { newId } from "./support/server.js";
import { changedCollections, snapshotData } from "./support/stored-data.js";

/**
 * One account never reaches another's data, on every procedure of the router, over REST and over tRPC. The victim
 * holds some of everything; on each procedure an intruder (a new account with data of its own) sends the victim's
 * ids, names, keys, refs and cursors. What reads or changes something by id answers the intruder exactly as for an
 * id that names nothing (404); a list shows the intruder its own data and none of the victim's; a create finds the
 * victim's unique names and keys free. Nothing the victim stored has changed afterwards, document for document.
 */
const server = useTestServer();

/** What a tenant holds, and the values an intruder can send of it. */
interface Tenant {
  accountId: string;
  token: string;
  customerIds: string[];
  customerName: string;
  externalId: string;
  alias: string;
  contractIds: string[];
  meterIds: string[];
  meterKey: string;
  measurementId: string;
  eventIds: string[];
  eventRefs: string[];
  entryIds: string[];
  invoiceIds: string[];
  /** The nextCursor of each paged list's first page of one item. */
  cursors: { customers: string; contracts: string; meters: string; invoices: string };
}

const EVENTS_WINDOW = { startTime: "2024-01-01T00:00:00Z", endTime: "2024-02-01T00:00:00Z" };
const ids = (items: { id: string }[]) => items.map((item) => item.id);
const JANUARY_USAGE = (owner: Tenant) => ({ meterKey: owner.meterKey, startDate: "2024-01-01", endDate: "2024-02-01" });

/** A new account with two of each resource, billed for January and February 2024. */
async function tenant(label: string): Promise<Tenant> {
  const account = await billingAccount(server, { name: `Co ${label}`, externalId: `ext-${label}`, aliases: [`alias-${label}`] });
  const get = async (path: string) => (await server.rest("GET", path, { token: account.token })).body;
  const customerIds = [account.customerId, await account.newCustomer({ name: `Second ${label}` })];
  const meterKey = `calls-${label}`;
  const meters = [];
  for (const key of [meterKey, `storage-${label}`]) {
    meters.push((await account.post("/meters", { key, eventName: "api_call", aggregation: "COUNT" }, 201)).meter);
  }
  const usage = { displayName: "API", catalogProductId: meterKey, scheduling: monthly(1), pricing: { type: "PER_UNIT", price: 1 } };
  const contracts = [
    await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 10), usage] }),
    await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(2, 10)] }),
  ];
  const eventRefs = [`ref-${label}-1`, `ref-${label}-2`];
  const timestamps = ["2024-01-10T00:00:00Z", "2024-01-11T00:00:00Z"];
  await account.post("/events", { events: eventRefs.map((ref, i) => ({ ref, name: "api_call", timestamp: timestamps[i], customerAlias: `alias-${label}` })) });
  const measurement = (await account.measure(meterKey, "2024-01-20", 3)).measurement;
  await account.grant(1000);
  await account.run("2024-03-01T00:00:00Z");
  const firstPageCursor = async (list: string) => (await get(`/${list}?limit=1`)).nextCursor as string;
  return {
    accountId: account.accountId,
    token: account.token,
    customerIds,
    customerName: `Co ${label}`,
    externalId: `ext-${label}`,
    alias: `alias-${label}`,
    contractIds: ids(contracts),
    meterIds: ids(meters),
    meterKey,
    measurementId: measurement.id,
    eventIds: ids((await get(`/events?${new URLSearchParams({ ...EVENTS_WINDOW, limit: "1000" })}`)).events),
    eventRefs,
    entryIds: ids(await account.ledger()),
    invoiceIds: ids(await account.allInvoices()),
    cursors: {
      customers: await firstPageCursor("customers"),
      contracts: await firstPageCursor("contracts"),
      meters: await firstPageCursor("meters"),
      invoices: await firstPageCursor("invoices"),
    },
  };
}

/** Ids, names and keys of the victim's kind that name nothing stored: what "as if it did not exist" is measured by. */
const nothing: Tenant = {
  accountId: newId(),
  token: "",
  customerIds: [newId()],
  customerName: "Co nobody",
  externalId: "ext-nobody",
  alias: "alias-nobody",
  contractIds: [newId()],
  meterIds: [newId()],
  meterKey: "calls-nobody",
  measurementId: newId(),
  eventIds: [newId()],
  eventRefs: ["ref-nobody"],
  entryIds: [newId()],
  invoiceIds: [newId()],
  cursors: { customers: "", contracts: "", meters: "", invoices: "" },
};

/** Every id of a tenant's data: none may appear in an answer to another account. */
const idsOf = (owner: Tenant) => [
  owner.accountId,
  ...owner.customerIds,
  ...owner.contractIds,
  ...owner.meterIds,
  owner.measurementId,
  ...owner.eventIds,
  ...owner.entryIds,
  ...owner.invoiceIds,
];

/**
 * One request of the intruder. `notFound`: 404 NOT_FOUND, the very answer to `nothing`'s values; `asForNothing`:
 * that answer, whatever it is; `ownOnly`: a success, with `check` saying what of the intruder's own it shows.
 */
interface Attempt {
  input: (victim: Tenant, intruder: Tenant) => Record<string, unknown>;
  expect: "notFound" | "asForNothing" | "ownOnly";
  check?: (answer: any, tenants: { victim: Tenant; intruder: Tenant }) => void;
}

/**
 * How each procedure is tried. `changesCaller`: an accepted attempt changes the intruder's own data (a create), so
 * each transport gets an intruder of its own.
 */
const TRIED: Record<string, { attempts: Attempt[]; changesCaller?: true }> = {
  "customers.create": {
    changesCaller: true,
    attempts: [
      {
        input: (victim) => ({ name: victim.customerName, externalId: victim.externalId, aliases: [victim.alias] }),
        expect: "ownOnly",
        check: (answer, { victim }) => expect(answer.customer).toMatchObject({ name: victim.customerName, aliases: [victim.alias] }),
      },
    ],
  },
  "customers.update": {
    attempts: [
      { input: (victim) => ({ customerId: victim.customerIds[0], taxId: "hijack" }), expect: "notFound" },
      { input: (victim) => ({ customerId: victim.externalId, taxId: "hijack" }), expect: "notFound" },
    ],
  },
  "customers.list": {
    attempts: [
      { input: () => ({ limit: 1000 }), expect: "ownOnly", check: (answer, { intruder }) => expect(ids(answer.customers)).toEqual(intruder.customerIds) },
      { input: (victim) => ({ cursor: victim.cursors.customers }), expect: "ownOnly" },
    ],
  },
  "customers.getByName": { attempts: [{ input: (victim) => ({ name: victim.customerName }), expect: "notFound" }] },
  "customers.get": {
    attempts: [
      { input: (victim) => ({ customerId: victim.customerIds[0] }), expect: "notFound" },
      { input: (victim) => ({ customerId: victim.externalId }), expect: "notFound" },
    ],
  },
  "contracts.create": {
    attempts: [{ input: (victim) => ({ customerId: victim.customerIds[0], name: "Hijack", startDate: "2024-01-01T00:00:00Z" }), expect: "notFound" }],
  },
  "contracts.list": {
    attempts: [
      { input: () => ({ limit: 1000 }), expect: "ownOnly", check: (answer, { intruder }) => expect(ids(answer.contracts)).toEqual(intruder.contractIds) },
      { input: (victim) => ({ cursor: victim.cursors.contracts }), expect: "ownOnly" },
    ],
  },
  "contracts.get": { attempts: [{ input: (victim) => ({ contractId: victim.contractIds[0] }), expect: "notFound" }] },
  "contracts.delete": { attempts: [{ input: (victim) => ({ contractId: victim.contractIds[0] }), expect: "notFound" }] },
  "measurements.create": {
    attempts: [
      {
        input: (victim) => ({ customerId: victim.customerIds[0], meterId: victim.meterKey, usageDate: { year: 2024, month: 1, day: 20 }, value: 0 }),
        expect: "notFound",
      },
      // The victim's meter key and day for the intruder's own customer: a measurement of the intruder's.
      {
        input: (victim, intruder) => ({ customerId: intruder.customerIds[0], meterId: victim.meterKey, usageDate: { year: 2024, month: 1, day: 20 }, value: 5 }),
        expect: "ownOnly",
        check: (answer, { intruder }) => expect(answer.measurement).toMatchObject({ customerId: intruder.customerIds[0], value: 5 }),
      },
    ],
  },
  "meters.create": {
    changesCaller: true,
    attempts: [
      {
        input: (victim) => ({ key: victim.meterKey, eventName: "api_call", aggregation: "COUNT" }),
        expect: "ownOnly",
        check: (answer, { victim }) => expect(answer.meter.key).toBe(victim.meterKey),
      },
    ],
  },
  "meters.list": {
    attempts: [
      { input: () => ({ limit: 1000 }), expect: "ownOnly", check: (answer, { intruder }) => expect(ids(answer.meters)).toEqual(intruder.meterIds) },
      { input: (victim) => ({ cursor: victim.cursors.meters }), expect: "ownOnly" },
    ],
  },
  "meters.get": {
    attempts: [
      { input: (victim) => ({ meterId: victim.meterIds[0] }), expect: "notFound" },
      { input: (victim) => ({ meterId: victim.meterKey }), expect: "notFound" },
    ],
  },
  "meters.update": {
    attempts: [
      { input: (victim) => ({ meterId: victim.meterIds[0], displayName: "Hijacked" }), expect: "notFound" },
      { input: (victim) => ({ meterId: victim.meterKey, displayName: "Hijacked" }), expect: "notFound" },
    ],
  },
  "usage.get": {
    attempts: [
      { input: (victim) => ({ customerId: victim.customerIds[0], ...JANUARY_USAGE(victim) }), expect: "notFound" },
      { input: (victim) => ({ customerId: victim.externalId, ...JANUARY_USAGE(victim) }), expect: "notFound" },
    ],
  },
  "credits.grant": { attempts: [{ input: (victim) => ({ customerId: victim.customerIds[0], amount: 1, type: "Grant" }), expect: "notFound" }] },
  "credits.list": {
    attempts: [
      { input: (victim) => ({ customerId: victim.customerIds[0] }), expect: "notFound" },
      // A cursor naming an entry of the victim's ledger is no position in the intruder's.
      { input: (victim, intruder) => ({ customerId: intruder.customerIds[0], cursor: victim.entryIds[0] }), expect: "notFound" },
    ],
  },
  "events.ingest": {
    changesCaller: true,
    attempts: [
      {
        input: (victim) => ({
          events: victim.eventRefs.map((ref) => ({ ref, name: "api_call", timestamp: "2024-01-10T00:00:00Z", customerAlias: victim.alias })),
        }),
        expect: "ownOnly",
        // The victim's refs are no duplicates in another account.
        check: (answer, { victim }) => expect(answer).toEqual({ stored: victim.eventRefs.length, duplicates: [] }),
      },
    ],
  },
  "events.query": {
    attempts: [
      { input: () => ({ ...EVENTS_WINDOW, limit: 1000 }), expect: "ownOnly", check: (answer, { intruder }) => expect(ids(answer.events)).toEqual(intruder.eventIds) },
      { input: (victim) => ({ ...EVENTS_WINDOW, cursor: victim.eventIds[0] }), expect: "notFound" },
    ],
  },
  "events.explain": { attempts: [{ input: (victim) => ({ eventId: victim.eventIds[0] }), expect: "notFound" }] },
  "invoices.preview": { attempts: [{ input: (victim) => ({ contractId: victim.contractIds[0], at: "2024-03-15T00:00:00Z" }), expect: "notFound" }] },
  "invoices.list": {
    attempts: [
      { input: () => ({ limit: 1000 }), expect: "ownOnly", check: (answer, { intruder }) => expect(ids(answer.invoices)).toEqual(intruder.invoiceIds) },
      { input: (victim) => ({ customerId: victim.customerIds[0] }), expect: "asForNothing" },
      { input: (victim) => ({ contractId: victim.contractIds[0] }), expect: "asForNothing" },
      { input: (victim) => ({ cursor: victim.cursors.invoices }), expect: "ownOnly" },
    ],
  },
  "invoices.get": { attempts: [{ input: (victim) => ({ invoiceId: victim.invoiceIds[0] }), expect: "notFound" }] },
  "billing.run": {
    changesCaller: true,
    attempts: [
      {
        // The victim's contracts have cycles to bill up to June as well: the run bills the intruder's two alone.
        input: () => ({ at: "2024-06-01T00:00:00Z" }),
        expect: "ownOnly",
        check: (answer) => expect(answer.run).toMatchObject({ contractsBilled: 2, invoicesCreated: 6, failures: [] }),
      },
    ],
  },
};

/** Procedures not tried, and why. */
const EXEMPT: Record<string, string> = Object.fromEntries(
  ["admin.createAccount", "admin.createToken", "admin.listTokens", "admin.rotateToken", "admin.revokeToken"].map((path) => [
    path,
    "the operator's: the admin token acts on every account by design, and account tokens are refused (security, scopes tests)",
  ]),
);

type ProcedureDef = { _def: { type: "query" | "mutation"; meta?: { openapi?: { method: string; path: string } } } };
const procedures = (appRouter as AnyRouter)._def.procedures as Record<string, ProcedureDef>;

/** A call over REST (the procedure's route, from its meta) or tRPC, answered as a status and a JSON body. */
async function call(transport: "REST" | "tRPC", token: string, path: string, input: Record<string, unknown>) {
  const procedure = procedures[path]!._def;
  if (transport === "tRPC") {
    const client = path.split(".").reduce<any>((node, key) => node[key], server.trpc(token));
    try {
      return { status: 200, body: await (procedure.type === "query" ? client.query(input) : client.mutate(input)) };
    } catch (error) {
      if (!(error instanceof TRPCClientError)) throw error;
      return { status: error.data.httpStatus as number, body: { code: error.data.code, message: error.message } };
    }
  }
  const { method, path: route } = procedure.meta!.openapi!;
  const rest = { ...input };
  const url = route.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(String(value));
  });
  const inQuery = method === "GET" || method === "DELETE";
  const query = new URLSearchParams(Object.entries(rest).map(([name, value]) => [name, String(value)]));
  const answer = await server.rest(method, inQuery && query.size > 0 ? `${url}?${query}` : url, { token, ...(!inQuery && { body: rest }) });
  return { status: answer.status, body: answer.body };
}

let victim: Tenant;
beforeAll(async () => {
  victim = await tenant("victim");
});

describe("tenant isolation on every procedure of the router", () => {
  it("tries every procedure, or names it exempt with the reason", () => {
    expect(Object.keys(procedures).sort()).toEqual([...Object.keys(TRIED), ...Object.keys(EXEMPT)].sort());
    for (const path of Object.keys(TRIED)) expect(procedures[path]!._def.meta?.openapi, `${path} has a REST route`).toBeDefined();
  });

  it.each(Object.keys(TRIED))("%s: another account's ids reach nothing, and the victim's data is unchanged", async (path) => {
    const { attempts, changesCaller } = TRIED[path]!;
    const victimBefore = await snapshotData(server.service.db, victim.accountId);
    let intruder: Tenant | undefined;
    for (const transport of ["REST", "tRPC"] as const) {
      if (!intruder || changesCaller) intruder = await tenant(randomBytes(4).toString("hex"));
      for (const [index, attempt] of attempts.entries()) {
        const what = `${transport} ${path}, attempt ${index + 1}`;
        const before = await snapshotData(server.service.db);
        const answer = await call(transport, intruder.token, path, attempt.input(victim, intruder));
        for (const id of idsOf(victim)) expect(JSON.stringify(answer.body), `${what} names the victim's ${id}`).not.toContain(id);
        if (attempt.expect === "ownOnly") {
          expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
          attempt.check?.(answer.body, { victim, intruder });
          continue;
        }
        const asForNothing = await call(transport, intruder.token, path, attempt.input(nothing, intruder));
        expect(answer, what).toEqual(asForNothing);
        if (attempt.expect === "notFound") expect([answer.status, answer.body.code], what).toEqual([404, "NOT_FOUND"]);
        // Refused, or a read: nothing stored changed, the intruder's own data included.
        expect(changedCollections(before, await snapshotData(server.service.db)), what).toEqual([]);
      }
    }
    expect(changedCollections(victimBefore, await snapshotData(server.service.db, victim.accountId))).toEqual([]);
  });
});
