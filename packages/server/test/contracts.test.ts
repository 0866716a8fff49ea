import type { ContractCreateInput, Product } from "@billing/shared";
import { ObjectId } from "mongodb";
import { describe, expect, it } from "vitest";
import { CONTRACT_DEFAULTS } from "./support/fixtures.js";
import { useAccount, useTestServer } from "./support/harness.js";
import { walkRestPages } from "./support/server.js";

const server = useTestServer();
const account = useAccount(server, { customer: { name: "Contracted Inc" } });

const newCustomer = async (owner: string, name: string) =>
  (await server.rest("POST", "/customers", { token: owner, body: { name } })).body.customer.id as string;

const monthly: Product["scheduling"] = { duration: { unit: "MONTH", value: 12 }, billingDay: 31 };
const fullProduct: Product = {
  displayName: "API calls",
  scheduling: monthly,
  pricing: { type: "ONE_TIME", price: 1234.567891 },
  description: "Per call",
  catalogProductId: "cat-1",
  productErpId: "erp-p-1",
  nsClass: "Software",
  nsClassId: "ns-1",
  commitment: {
    units: 2.5,
    price: 0.1,
    scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
    overageStrategy: "IGNORE",
  },
  paymentTerm: "Prepayment",
};

/** Every field of the create body, with values that are easy to get wrong (money decimals, `$` keys, dotted keys). */
const fullContract = (): ContractCreateInput => ({
  startDate: "2024-01-01T00:00:00.000Z",
  endDate: "2025-01-01T00:00:00.000Z",
  signatureDate: "2023-12-15T09:30:00.000Z",
  customerId: account.customerId,
  name: "Enterprise 2024",
  crmOpportunityId: "opp-9",
  products: [fullProduct, { displayName: "Bare product" }],
  productGroups: [
    {
      displayName: "Platform bundle",
      products: [fullProduct, { displayName: "Seat", pricing: { type: "ONE_TIME", price: 0 } }],
      description: "Bundle",
      productErpId: "erp-g-1",
      nsClass: "Bundles",
      nsClassId: "ns-2",
      baseAmount: 1_000_000_000,
      commitment: { units: 1_000_000, price: 0.000001 },
    },
    { displayName: "Empty group", products: [] },
  ],
  accountManager: "Grace",
  shouldProRateInvoices: true,
  autoRenewContract: false,
  customFields: [
    {
      serviceCustomFieldName: "deal",
      valueType: "String",
      integrationSource: "NetSuite",
      integrationEntityType: "opportunity",
      fieldPath: "a.b",
      value: { $set: { x: 1 }, "a.b": [1, null, "x"], nested: { $gt: true } },
    },
    { serviceCustomFieldName: "plain", value: "text" },
    { serviceCustomFieldName: "no value" },
  ],
  customFieldValues: [
    { customFieldDefinitionId: "def-1", value: "42", fieldName: "Seats" },
    { customFieldDefinitionId: "def-2", value: "" },
  ],
  status: "InReview",
});

describe("contracts over REST", () => {
  it("creates a contract with every field: 201, each field round-trips, id and timestamps added", async () => {
    const body = fullContract();
    const created = await server.rest("POST", "/contracts", { token: account.token, body });
    expect(created.status).toBe(201);
    const { id, createdAt, updatedAt, ...echoed } = created.body.contract;
    expect(echoed).toEqual({ ...body, currency: "USD", renewals: 0, version: 1 });
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(updatedAt).toBe(createdAt);
    expect(new Date(createdAt).toISOString()).toBe(createdAt);
    expect(created.body.contract).not.toHaveProperty("deletedAt");

    const fetched = await server.rest("GET", `/contracts/${id}`, { token: account.token });
    expect(fetched.status).toBe(200);
    expect(fetched.body.contract).toEqual(created.body.contract);
  });

  it("stores money as integer micro-units and custom field values as JSON text", async () => {
    const { id } = (await server.rest("POST", "/contracts", { token: account.token, body: fullContract() })).body
      .contract;
    const stored = await server.service.db
      .collection("contracts")
      .findOne(
        { customerId: account.customerId, name: "Enterprise 2024", crmOpportunityId: "opp-9" },
        { sort: { _id: -1 } },
      );
    expect(stored?._id.toHexString()).toBe(id);
    expect(stored?.products[0].pricing).toEqual({ type: "ONE_TIME", priceMicros: 1_234_567_891 });
    expect(stored?.productGroups[0].baseAmountMicros).toBe(1e15);
    expect(stored?.productGroups[0].commitment.priceMicros).toBe(1);
    expect(stored?.customFields[0]).not.toHaveProperty("value");
    expect(JSON.parse(stored?.customFields[0].valueJson)).toEqual(fullContract().customFields?.[0]?.value);
  });

  it("applies defaults: not pro-rated, auto-renewed, Active, open-ended", async () => {
    const { status, body } = await server.rest("POST", "/contracts", {
      token: account.token,
      body: { startDate: "2024-03-01T00:00:00Z", customerId: account.customerId, name: "Minimal" },
    });
    expect(status).toBe(201);
    expect(body.contract).toEqual({
      id: expect.any(String),
      startDate: "2024-03-01T00:00:00.000Z",
      customerId: account.customerId,
      name: "Minimal",
      ...CONTRACT_DEFAULTS,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it("returns timestamps in UTC, accepts offsets, and needs endDate on a later UTC day than startDate", async () => {
    const create = (startDate: string, endDate: string) =>
      server.rest("POST", "/contracts", {
        token: account.token,
        body: {
          startDate,
          endDate,
          signatureDate: "2023-12-31T23:30:00-01:00",
          customerId: account.customerId,
          name: "Offsets",
        },
      });
    // 10:00+02:00 is 08:00Z on Jan 1, and 01:00+02:00 on Jan 3 is 23:00Z on Jan 2: the contract covers Jan 1 and Jan 2.
    const { status, body } = await create("2024-01-01T10:00:00+02:00", "2024-01-03T01:00:00+02:00");
    expect(status).toBe(201);
    expect(body.contract).toMatchObject({
      startDate: "2024-01-01T08:00:00.000Z",
      endDate: "2024-01-02T23:00:00.000Z",
      signatureDate: "2024-01-01T00:30:00.000Z",
    });
    // Later in the day than the start, but on the same UTC day (Jan 1, 23:30Z): it would cover no day.
    for (const endDate of ["2024-01-01T08:00:00Z", "2024-01-02T00:30:00+01:00"]) {
      const refused = await create("2024-01-01T10:00:00+02:00", endDate);
      expect(refused.status).toBe(400);
      expect(refused.body.issues).toEqual([{ path: "endDate", message: expect.stringContaining("later UTC day") }]);
    }
  });

  it("accepts every status and the customer id in upper case (stored in canonical form)", async () => {
    for (const status of ["InReview", "Active", "Inactive", "Expired", "Terminated", "PendingTermination", "Error"]) {
      const created = await server.rest("POST", "/contracts", {
        token: account.token,
        body: { startDate: "2024-01-01T00:00:00Z", customerId: account.customerId, name: status, status },
      });
      expect(created.status).toBe(201);
      expect(created.body.contract.status).toBe(status);
    }
    const upper = await server.rest("POST", "/contracts", {
      token: account.token,
      body: { startDate: "2024-01-01T00:00:00Z", customerId: account.customerId.toUpperCase(), name: "Upper" },
    });
    expect(upper.status).toBe(201);
    expect(upper.body.contract.customerId).toBe(account.customerId);
  });

  it("names the customer by its externalId as well, storing the customer's id", async () => {
    const { body } = await server.rest("POST", "/customers", {
      token: account.token,
      body: { name: "Known by an external id", externalId: "crm-4711" },
    });
    const created = await server.rest("POST", "/contracts", {
      token: account.token,
      body: { startDate: "2024-01-01T00:00:00Z", customerId: "crm-4711", name: "By externalId" },
    });
    expect(created.status).toBe(201);
    expect(created.body.contract.customerId).toBe(body.customer.id);
    const unknown = await server.rest("POST", "/contracts", {
      token: account.token,
      body: { startDate: "2024-01-01T00:00:00Z", customerId: "crm-0000", name: "Nobody's" },
    });
    expect(unknown.status).toBe(404);
  });

  it("lists contracts with total, hasMore and an opaque cursor, each once, in creation order", async () => {
    const { token: own } = await server.newAccount();
    const ownCustomer = await newCustomer(own, "Lister");
    const created: string[] = [];
    for (let i = 0; i < 23; i += 1) {
      const { body } = await server.rest("POST", "/contracts", {
        token: own,
        body: { startDate: "2024-01-01T00:00:00Z", customerId: ownCustomer, name: `k-${i}` },
      });
      created.push(body.contract.id);
    }
    const walk = await walkRestPages(server, own, "/contracts", "contracts", 5);
    expect(walk.ids).toEqual(created);
    expect(walk.pages).toBe(5);
    expect(new Set(walk.totals)).toEqual(new Set([23]));

    const first = await server.rest("GET", "/contracts", { token: own });
    expect(first.body.contracts).toHaveLength(10);
    expect(first.body).toMatchObject({ total: 23, hasMore: true, nextCursor: expect.any(String) });
    expect(first.body.nextCursor).not.toContain(created[9]);

    const all = await server.rest("GET", "/contracts?limit=1000", { token: own });
    expect(all.body).toMatchObject({ total: 23, hasMore: false });
    expect(all.body).not.toHaveProperty("nextCursor");
    expect(all.body.contracts[22].name).toBe("k-22");
  });

  it("lists one customer's contracts by its id or externalId; a customer of none, or unknown, lists none", async () => {
    const { token: own } = await server.newAccount();
    const [first, second] = [await newCustomer(own, "First"), await newCustomer(own, "Second")];
    await server.rest("PATCH", `/customers/${second}`, { token: own, body: { externalId: "second-ext" } });
    const contractOf = async (customerId: string, name: string) =>
      (
        await server.rest("POST", "/contracts", {
          token: own,
          body: { startDate: "2024-01-01T00:00:00Z", customerId, name },
        })
      ).body.contract.id;
    const firsts = [await contractOf(first, "f-1"), await contractOf(first, "f-2")];
    const seconds = [await contractOf(second, "s-1")];
    firsts.push(await contractOf(first, "f-3"));
    const walk = await walkRestPages(server, own, `/contracts?customerId=${first}`, "contracts", 2);
    expect(walk.ids).toEqual(firsts);
    expect(new Set(walk.totals)).toEqual(new Set([3]));
    const byExternalId = await server.rest("GET", "/contracts?customerId=second-ext", { token: own });
    expect(byExternalId.body).toMatchObject({ total: 1, hasMore: false });
    expect(byExternalId.body.contracts.map(({ id }: { id: string }) => id)).toEqual(seconds);
    const unknown = await server.rest("GET", `/contracts?customerId=${new ObjectId().toHexString()}`, { token: own });
    expect(unknown.body).toMatchObject({ contracts: [], total: 0, hasMore: false });
  });

  it("deletes softly: 200 with deletedAt and Terminated, then gone from GET, lists, totals; again 404", async () => {
    const { token: own } = await server.newAccount();
    const ownCustomer = await newCustomer(own, "Deleter");
    const ids: string[] = [];
    for (const name of ["keep-1", "doomed", "keep-2"]) {
      ids.push(
        (
          await server.rest("POST", "/contracts", {
            token: own,
            body: { startDate: "2024-01-01T00:00:00Z", customerId: ownCustomer, name, products: [fullProduct] },
          })
        ).body.contract.id,
      );
    }
    const doomedId = ids[1]!;
    const before = (await server.rest("GET", `/contracts/${doomedId}`, { token: own })).body.contract;

    const deleted = await server.rest("DELETE", `/contracts/${doomedId}`, { token: own });
    expect(deleted.status).toBe(200);
    const { deletedAt, status, updatedAt, ...kept } = deleted.body.contract;
    expect(new Date(deletedAt).toISOString()).toBe(deletedAt);
    expect(deletedAt >= before.createdAt).toBe(true);
    expect(status).toBe("Terminated");
    expect(updatedAt).toBe(deletedAt);
    const { status: _active, updatedAt: _old, ...keptBefore } = before;
    expect(kept).toEqual(keptBefore);

    expect((await server.rest("GET", `/contracts/${doomedId}`, { token: own })).status).toBe(404);
    expect((await server.rest("DELETE", `/contracts/${doomedId}`, { token: own })).status).toBe(404);
    const walk = await walkRestPages(server, own, "/contracts", "contracts", 1);
    expect(walk.ids).toEqual([ids[0], ids[2]]);
    expect(new Set(walk.totals)).toEqual(new Set([2]));
    expect(await server.service.db.collection("contracts").countDocuments({ name: "doomed" })).toBe(1);
  });

  it("of concurrent deletes of one contract, exactly one succeeds", async () => {
    const { token: own } = await server.newAccount();
    const ownCustomer = await newCustomer(own, "Racer");
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push(
        (
          await server.rest("POST", "/contracts", {
            token: own,
            body: { startDate: "2024-01-01T00:00:00Z", customerId: ownCustomer, name: `raced-${i}` },
          })
        ).body.contract.id,
      );
    }
    const rounds = await Promise.all(
      ids.map((id) =>
        Promise.all(Array.from({ length: 8 }, () => server.rest("DELETE", `/contracts/${id}`, { token: own }))),
      ),
    );
    for (const [index, responses] of rounds.entries()) {
      expect(responses.map((response) => response.status).sort()).toEqual([200, 404, 404, 404, 404, 404, 404, 404]);
      const winner = responses.find((response) => response.status === 200)!;
      const stored = await server.service.db.collection("contracts").findOne({ name: `raced-${index}` });
      expect(stored?.deletedAt.toISOString()).toBe(winner.body.contract.deletedAt);
    }
    expect((await server.rest("GET", "/contracts", { token: own })).body.total).toBe(0);
  });

  it("completes a deletion that stopped after recording it: gone from reads, with the recorded time", async () => {
    const { body } = await server.rest("POST", "/contracts", {
      token: account.token,
      body: { startDate: "2024-01-01T00:00:00Z", customerId: account.customerId, name: "Half deleted" },
    });
    const { accountId } = (await server.service.db.collection("contracts").findOne({ name: "Half deleted" }))!;
    const deletedAt = new Date("2030-01-01T00:00:00Z");
    await server.service.db
      .collection("contractDeletions")
      .insertOne({ _id: new ObjectId(body.contract.id as string), accountId, deletedAt });

    expect((await server.rest("DELETE", `/contracts/${body.contract.id}`, { token: account.token })).status).toBe(404);
    expect((await server.rest("GET", `/contracts/${body.contract.id}`, { token: account.token })).status).toBe(404);
    const stored = await server.service.db.collection("contracts").findOne({ name: "Half deleted" });
    expect(stored).toMatchObject({ deletedAt, status: "Terminated", updatedAt: deletedAt });
  });
});

describe("contracts over tRPC", () => {
  it("creates, gets, lists and deletes through the same procedures", async () => {
    const client = server.trpc(account.token);
    const { contract } = await client.contracts.create.mutate({ ...fullContract(), name: "Via tRPC" });
    const { id, createdAt, updatedAt, ...echoed } = contract;
    expect(echoed).toEqual({ ...fullContract(), name: "Via tRPC", currency: "USD", renewals: 0, version: 1 });
    expect((await client.contracts.get.query({ contractId: id })).contract).toEqual(contract);

    const page = await client.contracts.list.query({ limit: 1000 });
    expect(page.contracts.map((c) => c.id)).toContain(id);
    expect(page.total).toBe(page.contracts.length);

    const { contract: deleted } = await client.contracts.delete.mutate({ contractId: id });
    expect(deleted).toMatchObject({ id, status: "Terminated", deletedAt: expect.any(String) });
    const after = await client.contracts.list.query({ limit: 1000 });
    expect(after.total).toBe(page.total - 1);
    expect(after.contracts.map((c) => c.id)).not.toContain(id);
  });

  it("applies the same defaults and keeps booleans strict after REST requests ran", async () => {
    await server.rest("GET", "/contracts?limit=5", { token: account.token });
    const client = server.trpc(account.token);
    const { contract } = await client.contracts.create.mutate({
      startDate: "2024-01-01T00:00:00Z",
      customerId: account.customerId,
      name: "tRPC defaults",
    });
    expect(contract).toMatchObject({ shouldProRateInvoices: false, autoRenewContract: true, status: "Active" });
    await expect(
      client.contracts.create.mutate({
        startDate: "2024-01-01T00:00:00Z",
        customerId: account.customerId,
        name: "Strict",
        autoRenewContract: "false" as unknown as boolean,
      }),
    ).rejects.toMatchObject({ data: { code: "BAD_REQUEST" } });
  });
});
