import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { useAccount, useTestServer } from "./support/harness.js";

const server = useTestServer();
const account = useAccount(server);

const create = (body: unknown) => server.rest("POST", "/tax-rates", { token: account.token, body });
const storedRates = () => server.service.db.collection("taxRates").countDocuments();

describe("tax rates over REST", () => {
  it("creates a rate (exclusive by default): 201; gets it by id and by code; lists it", async () => {
    const { status, body } = await create({ code: "VAT_DE_19", name: "VAT 19 %", rate: 19 });
    expect(status).toBe(201);
    expect(body.taxRate).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      code: "VAT_DE_19",
      name: "VAT 19 %",
      rate: 19,
      inclusive: false,
      archivedAt: null,
      createdAt: expect.any(String),
      updatedAt: body.taxRate.createdAt,
    });
    const get = (ref: string) => server.rest("GET", `/tax-rates/${ref}`, { token: account.token });
    expect((await get(body.taxRate.id)).body.taxRate).toEqual(body.taxRate);
    expect((await get("VAT_DE_19")).body.taxRate).toEqual(body.taxRate);
    const list = await server.rest("GET", "/tax-rates?limit=1000", { token: account.token });
    expect(list.body).toMatchObject({ total: expect.any(Number), hasMore: false });
    expect(list.body.taxRates).toContainEqual(body.taxRate);
  });

  it("409 for a code already used in the account", async () => {
    await create({ code: "DUP", name: "One", rate: 1 });
    expectError(await create({ code: "DUP", name: "Two", rate: 2, inclusive: true }), 409, "CONFLICT");
  });

  it("400 naming the field for a rate beyond 0..100 or with more than 4 decimals; nothing is stored", async () => {
    const before = await storedRates();
    for (const [body, path] of [
      [{ code: "R", name: "r", rate: 100.0001 }, "rate"],
      [{ code: "R", name: "r", rate: -1 }, "rate"],
      [{ code: "R", name: "r", rate: 19.12345 }, "rate"],
      [{ code: "R", name: "r", rate: "19" }, "rate"],
      [{ code: "with space", name: "r", rate: 1 }, "code"],
      [{ code: "R", name: " ", rate: 1 }, "name"],
      [{ code: "R", name: "r", rate: 1, extra: true }, "extra"],
    ] as const) {
      const response = await create(body);
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues.map((issue: { path: string }) => issue.path)).toEqual([path]);
    }
    expect(await storedRates()).toBe(before);
    // 4 decimals and both bounds are fine.
    for (const rate of [0, 100, 8.8751])
      expect((await create({ code: `OK${rate}`, name: "r", rate })).status).toBe(201);
  });

  it("PATCH renames only: the rate never changes (400), 404 for a rate of no one", async () => {
    const { taxRate } = (await create({ code: "RENAME", name: "Old", rate: 5 })).body;
    const patch = (ref: string, body: unknown) =>
      server.rest("PATCH", `/tax-rates/${ref}`, { token: account.token, body });
    const renamed = await patch("RENAME", { name: "New" });
    expect(renamed.status).toBe(200);
    expect(renamed.body.taxRate).toMatchObject({ ...taxRate, name: "New", updatedAt: expect.any(String) });
    const refused = await patch(taxRate.id, { name: "x", rate: 6 });
    expectError(refused, 400, "BAD_REQUEST");
    expect(refused.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["rate"]);
    expectError(await patch("NOBODY", { name: "x" }), 404, "NOT_FOUND");
  });

  it("DELETE archives: the rate stays readable with archivedAt; again, it is unchanged", async () => {
    const { taxRate } = (await create({ code: "GONE", name: "Gone", rate: 3 })).body;
    const archived = await server.rest("DELETE", "/tax-rates/GONE", { token: account.token });
    expect(archived.status).toBe(200);
    expect(archived.body.taxRate).toMatchObject({ id: taxRate.id, rate: 3, archivedAt: expect.any(String) });
    const again = await server.rest("DELETE", `/tax-rates/${taxRate.id}`, { token: account.token });
    expect(again.body.taxRate).toEqual(archived.body.taxRate);
    const read = await server.rest("GET", "/tax-rates/GONE", { token: account.token });
    expect(read.body.taxRate).toEqual(archived.body.taxRate);
    expectError(await server.rest("DELETE", "/tax-rates/NOBODY", { token: account.token }), 404, "NOT_FOUND");
  });

  it("the same over tRPC", async () => {
    const trpc = server.trpc(account.token);
    const { taxRate } = await trpc.taxRates.create.mutate({ code: "TRPC", name: "tRPC", rate: 7.5, inclusive: true });
    expect(taxRate).toMatchObject({ code: "TRPC", rate: 7.5, inclusive: true, archivedAt: null });
    expect((await trpc.taxRates.get.query({ taxRateId: "TRPC" })).taxRate).toEqual(taxRate);
    expect((await trpc.taxRates.archive.mutate({ taxRateId: taxRate.id })).taxRate.archivedAt).not.toBeNull();
  });
});
