import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { useAccount, useTestServer } from "./support/harness.js";
import { trpcErrorCode } from "./support/server.js";

const server = useTestServer();
const account = useAccount(server, { customer: { name: "Customer" } });

const issuePaths = (response: { body: { issues?: { path: string }[] } }) =>
  (response.body.issues ?? []).map((issue) => issue.path);

const minimal = () => ({ startDate: "2024-01-01T00:00:00Z", customerId: account.customerId, name: "Valid" });
const createContract = (body: unknown) => server.rest("POST", "/contracts", { token: account.token, body });

/** Every refused create leaves nothing behind. */
const expectNothingStored = async () => {
  expect((await server.rest("GET", "/contracts", { token: account.token })).body.total).toBe(0);
};

describe("contract create errors", () => {
  it.each(["id", "createdAt", "updatedAt", "deletedAt", "accountId", "unknownField"])(
    "400 for the field %s in the body",
    async (field) => {
      const response = await createContract({
        ...minimal(),
        [field]: field === "id" ? "0123456789abcdef01234567" : "2024-01-01T00:00:00Z",
      });
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.message).toContain(field);
      await expectNothingStored();
    },
  );

  it("400 naming each missing required field", async () => {
    const response = await createContract({});
    expectError(response, 400, "BAD_REQUEST");
    expect(issuePaths(response)).toEqual(expect.arrayContaining(["startDate", "customerId", "name"]));
    expectError(await createContract({ ...minimal(), name: "   " }), 400, "BAD_REQUEST");
  });

  it.each(["Pending", "active", "", 1, null])("400 for status %j", async (status) => {
    const response = await createContract({ ...minimal(), status });
    expectError(response, 400, "BAD_REQUEST");
    expect(issuePaths(response)).toEqual(["status"]);
  });

  it.each(["2024-13-01T00:00:00Z", "2024-01-01", "yesterday", "", 1704067200000, null])(
    "400 for the date %j",
    async (date) => {
      for (const field of ["startDate", "endDate", "signatureDate"]) {
        const response = await createContract({ ...minimal(), [field]: date });
        expectError(response, 400, "BAD_REQUEST");
        expect(issuePaths(response)).toEqual([field]);
      }
      await expectNothingStored();
    },
  );

  it("400 naming endDate when it is before startDate, comparing instants rather than text", async () => {
    const early = await createContract({
      ...minimal(),
      startDate: "2024-06-01T00:00:00Z",
      endDate: "2024-05-31T23:59:59.999Z",
    });
    expectError(early, 400, "BAD_REQUEST");
    expect(issuePaths(early)).toEqual(["endDate"]);
    // 11:00+02:00 is 09:00Z: before a 10:00Z start, though its text sorts after it.
    const offset = await createContract({
      ...minimal(),
      startDate: "2024-01-01T10:00:00Z",
      endDate: "2024-01-01T11:00:00+02:00",
    });
    expect(issuePaths(offset)).toEqual(["endDate"]);
    await expectNothingStored();
  });

  it("400 for booleans sent as strings or numbers", async () => {
    expect(issuePaths(await createContract({ ...minimal(), shouldProRateInvoices: "true" }))).toEqual([
      "shouldProRateInvoices",
    ]);
    expect(issuePaths(await createContract({ ...minimal(), autoRenewContract: 0 }))).toEqual(["autoRenewContract"]);
  });

  it("400 naming invalid fields inside products, product groups and custom fields", async () => {
    const response = await createContract({
      ...minimal(),
      products: [
        { description: "no display name" },
        { displayName: "p", scheduling: { duration: { unit: "YEAR", value: 0 }, billingDay: 32 } },
        // An unknown pricing type is the one issue of its pricing: which fields apply depends on the type.
        { displayName: "p", pricing: { type: "RECURRING", price: -1 }, paymentTerm: "Net30", extra: 1 },
        // CHARGE needs overagePrice and a catalogProductId; the price is named twice (its decimals, and units × price
        // over the ceiling).
        { displayName: "p", commitment: { units: 1e9 + 1, price: 1.0000001, overageStrategy: "CHARGE" } },
        { displayName: "p", scheduling: { duration: { unit: "MONTH", value: 2.5 }, billingDay: 0 } },
        { displayName: "p", commitment: { units: 1 } },
      ],
      productGroups: [
        { displayName: "g", baseAmount: 0.0000001, products: [{ displayName: "" }] },
        { displayName: "no products" },
      ],
      customFields: [{ value: 1 }],
      customFieldValues: [{ customFieldDefinitionId: "d", value: 5 }],
    });
    expectError(response, 400, "BAD_REQUEST");
    expect(issuePaths(response).sort()).toEqual(
      [
        "products.0.displayName",
        "products.1.scheduling.duration.unit",
        "products.1.scheduling.duration.value",
        "products.1.scheduling.billingDay",
        "products.2.pricing.type",
        "products.2.paymentTerm",
        "products.2.extra",
        "products.3.catalogProductId",
        "products.3.commitment.units",
        "products.3.commitment.price",
        "products.3.commitment.overagePrice",
        "products.3.commitment.price",
        "products.4.scheduling.duration.value",
        "products.4.scheduling.billingDay",
        "products.5.commitment.price",
        "productGroups.0.baseAmount",
        "productGroups.0.products.0.displayName",
        "productGroups.1.products",
        "customFields.0.serviceCustomFieldName",
        "customFieldValues.0.value",
      ].sort(),
    );
    await expectNothingStored();
  });

  it("400 for more than 100 products, product groups or products in a group", async () => {
    const products = Array.from({ length: 101 }, (_, i) => ({ displayName: `p${i}` }));
    expect(issuePaths(await createContract({ ...minimal(), products }))).toEqual(["products"]);
    expect(
      issuePaths(await createContract({ ...minimal(), productGroups: products.map((p) => ({ ...p, products: [] })) })),
    ).toEqual(["productGroups"]);
    expect(issuePaths(await createContract({ ...minimal(), productGroups: [{ displayName: "g", products }] }))).toEqual(
      ["productGroups.0.products"],
    );
    expect((await createContract({ ...minimal(), products: products.slice(0, 100) })).status).toBe(201);
  });

  it("404 for a customerId that names no customer, whatever it looks like; nothing stored", async () => {
    const { token: fresh } = await server.newAccount();
    const freshCustomer = (await server.rest("POST", "/customers", { token: fresh, body: { name: "c" } })).body.customer
      .id;
    for (const missing of ["0123456789abcdef01234567", "nobody", '{"$ne":null}', "Customer"]) {
      const response = await server.rest("POST", "/contracts", {
        token: fresh,
        body: { ...minimal(), customerId: missing },
      });
      expectError(response, 404, "NOT_FOUND");
      expect(response.body.message).toBe("Customer not found");
    }
    expectError(
      await server.rest("POST", "/contracts", { token: fresh, body: { ...minimal(), customerId: { $ne: null } } }),
      400,
      "BAD_REQUEST",
    );
    expect((await server.rest("GET", "/contracts", { token: fresh })).body.total).toBe(0);
    expect(
      (await server.rest("POST", "/contracts", { token: fresh, body: { ...minimal(), customerId: freshCustomer } }))
        .status,
    ).toBe(201);
  });

  it("400 for bad JSON, 415 for a non-JSON body", async () => {
    expectError(await createContract('{"name": "x"'), 400, "BAD_REQUEST");
    expectError(
      await server.rest("POST", "/contracts", {
        token: account.token,
        body: "name=x",
        headers: { "content-type": "text/plain" },
      }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
  });
});

describe("contract read and delete errors", () => {
  it.each(["0", "1001", "-1", "2.5", "abc", ""])("400 for limit=%s", async (limit) => {
    const response = await server.rest("GET", `/contracts?limit=${limit}`, { token: account.token });
    expectError(response, 400, "BAD_REQUEST");
    expect(issuePaths(response)).toEqual(["limit"]);
  });

  it.each([
    "garbage",
    "djE6bm90LWFuLWlk",
    "%24ne",
    `${Buffer.from(`v1:${"f".repeat(24)}`).toString("base64url")}x`,
    "0123456789abcdef01234567",
  ])("400 for a malformed cursor %s", async (cursor) => {
    const response = await server.rest("GET", `/contracts?cursor=${cursor}`, { token: account.token });
    expectError(response, 400, "BAD_REQUEST");
    expect(issuePaths(response)).toEqual(["cursor"]);
  });

  it.each(["0123456789abcdef01234567", "nobody", encodeURIComponent('{"$ne":null}'), "%24where"])(
    "404 for GET and DELETE of %s",
    async (id) => {
      for (const method of ["GET", "DELETE"]) {
        const response = await server.rest(method, `/contracts/${id}`, { token: account.token });
        expectError(response, 404, "NOT_FOUND");
        expect(response.body.message).toBe("Contract not found");
      }
    },
  );

  it("401 on every contract route without a token, before validation", async () => {
    for (const [method, path] of [
      ["GET", "/contracts"],
      ["GET", "/contracts?limit=0"],
      ["GET", "/contracts/x"],
      ["DELETE", "/contracts/x"],
      ["POST", "/contracts"],
    ] as const) {
      expectError(await server.rest(method, path, method === "POST" ? { body: {} } : {}), 401, "UNAUTHORIZED");
    }
  });
});

describe("contract errors over tRPC carry the same codes", () => {
  it("BAD_REQUEST and NOT_FOUND", async () => {
    const client = server.trpc(account.token);
    type CreateInput = Parameters<typeof client.contracts.create.mutate>[0];
    expect(await trpcErrorCode(client.contracts.create.mutate({ ...minimal(), id: "x" } as CreateInput))).toBe(
      "BAD_REQUEST",
    );
    expect(await trpcErrorCode(client.contracts.create.mutate({ ...minimal(), endDate: "2023-01-01T00:00:00Z" }))).toBe(
      "BAD_REQUEST",
    );
    expect(
      await trpcErrorCode(client.contracts.create.mutate({ ...minimal(), status: "Gone" as CreateInput["status"] })),
    ).toBe("BAD_REQUEST");
    expect(
      await trpcErrorCode(client.contracts.create.mutate({ ...minimal(), customerId: "0123456789abcdef01234567" })),
    ).toBe("NOT_FOUND");
    expect(await trpcErrorCode(client.contracts.get.query({ contractId: "missing" }))).toBe("NOT_FOUND");
    expect(await trpcErrorCode(client.contracts.delete.mutate({ contractId: "0123456789abcdef01234567" }))).toBe(
      "NOT_FOUND",
    );
    for (const limit of [0, 1001, -1, 2.5])
      expect(await trpcErrorCode(client.contracts.list.query({ limit }))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(client.contracts.list.query({ cursor: "garbage" }))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(server.trpc().contracts.list.query({}))).toBe("UNAUTHORIZED");
  });

  it("a deleted contract is NOT_FOUND for get and for a second delete", async () => {
    const client = server.trpc(account.token);
    const { contract } = await client.contracts.create.mutate(minimal());
    await client.contracts.delete.mutate({ contractId: contract.id });
    expect(await trpcErrorCode(client.contracts.get.query({ contractId: contract.id }))).toBe("NOT_FOUND");
    expect(await trpcErrorCode(client.contracts.delete.mutate({ contractId: contract.id }))).toBe("NOT_FOUND");
  });
});
