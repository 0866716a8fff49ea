import { describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, ValidationError } from "../src/index.js";
import { inSequence, newClient, rejectionOf, useTestServer, walk } from "./helpers.js";

const ctx = useTestServer();

describe("tax rates", () => {
  it("creates, gets by id and code, renames, archives and lists tax rates", async () => {
    const { client } = await newClient(ctx.server);
    const rate = await client.taxRates.create({ code: "VAT20", name: "VAT", rate: 20 });
    expect(rate).toMatchObject({ id: expect.any(String), code: "VAT20", rate: 20, inclusive: false, archivedAt: null });
    expect(await client.taxRates.get(rate.id)).toEqual(rate);
    expect(await client.taxRates.get("VAT20")).toEqual(rate);
    expect(await client.taxRates.update("VAT20", { name: "VAT 20 %" })).toMatchObject({
      id: rate.id,
      name: "VAT 20 %",
    });
    const archived = await client.taxRates.archive("VAT20");
    expect(archived.archivedAt).toEqual(expect.any(String));
    // Safe to repeat: the archival stands as it was.
    expect(await client.taxRates.archive(rate.id)).toEqual(archived);

    await inSequence(4, (index) => client.taxRates.create({ code: `R${index}`, name: "r", rate: index }));
    expect((await client.taxRates.list({ limit: 2 })).total).toBe(5);
    const { pageSizes, ids } = await walk(client.taxRates.listAll({ limit: 2 }), (page) => page.taxRates);
    expect(pageSizes).toEqual([2, 2, 1]);
    expect(ids[0]).toBe(rate.id);
  });

  it("rejects a duplicate code, a bad rate and an unknown one with typed errors", async () => {
    const { client } = await newClient(ctx.server);
    await client.taxRates.create({ code: "K", name: "k", rate: 1 });
    expect(await rejectionOf(client.taxRates.create({ code: "K", name: "k", rate: 2 }))).toBeInstanceOf(ConflictError);
    const invalid = await rejectionOf(client.taxRates.create({ code: "B", name: "b", rate: 19.12345 }));
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).issues.map((issue) => issue.path)).toEqual(["rate"]);
    expect(await rejectionOf(client.taxRates.get("nothing"))).toBeInstanceOf(NotFoundError);
  });
});
