import { describe, expect, it } from "vitest";
import { createBillingClient, NotFoundError } from "../src/index.js";
import { countingFetch, useTestServer } from "./helpers.js";

const ctx = useTestServer();

async function countingClient() {
  const { token } = await ctx.server.newAccount();
  const counting = countingFetch();
  return { ...counting, client: createBillingClient({ baseUrl: ctx.server.url, token, fetch: counting.fetch }) };
}

describe("batching", () => {
  it("sends the mutations of one tick in one request, each with its own answer", async () => {
    const { client, urls } = await countingClient();
    const events = (ref: string) => [{ name: "call", timestamp: "2024-01-01T00:00:00Z", customerAlias: "c", ref }];
    const ingested = await Promise.all(["a", "b", "c"].map((ref) => client.events.ingest(events(ref))));
    expect(ingested).toEqual(Array.from({ length: 3 }, () => ({ stored: 1, duplicates: [] })));
    expect(urls).toHaveLength(1);
    expect(urls[0]).toContain("/trpc/events.ingest,events.ingest,events.ingest?batch=1");
  });

  it("sends each keyed mutation (creation, grant, delete) in a request of its own: a key names one call", async () => {
    const { client, urls } = await countingClient();
    const created = await Promise.all(["A", "B", "C"].map((name) => client.customers.create({ name })));
    expect(created.map((c) => c.name)).toEqual(["A", "B", "C"]);
    expect(new Set(created.map((c) => c.id)).size).toBe(3);
    expect(urls.sort()).toEqual(Array.from({ length: 3 }, () => expect.stringMatching(/\/trpc\/customers\.create$/)));
  });

  it("sends the reads of one tick in one request, across namespaces", async () => {
    const { client, urls } = await countingClient();
    const a = await client.customers.create({ name: "A" });
    const b = await client.customers.create({ name: "B" });
    expect(urls).toHaveLength(2); // one request per tick: awaited calls are not batched together
    urls.length = 0;

    const [byId, byName, page, contracts, invoices] = await Promise.all([
      client.customers.get(a.id),
      client.customers.getByName("B"),
      client.customers.list({ limit: 1 }),
      client.contracts.list(),
      client.invoices.list(),
    ]);
    expect(urls).toHaveLength(1);
    expect(byId.id).toBe(a.id);
    expect(byName.id).toBe(b.id);
    expect(page).toMatchObject({ total: 2, hasMore: true, customers: [a] });
    expect(contracts.total).toBe(0);
    expect(invoices.total).toBe(0);
  });

  it("splits the calls of one tick at the server's batch limit (50): none is refused for the batch size", async () => {
    const { client, urls } = await countingClient();
    const pages = await Promise.all(Array.from({ length: 51 }, () => client.customers.list()));
    expect(pages.every((page) => page.total === 0)).toBe(true);
    expect(urls).toHaveLength(2);
    expect(urls.map((url) => new URL(url).pathname.split(",").length).sort((a, b) => a - b)).toEqual([1, 50]);
  });

  it("fails only the calls of a batch that the server refused", async () => {
    const { client, urls } = await countingClient();
    const a = await client.customers.create({ name: "A" });
    urls.length = 0;
    const [found, missing] = await Promise.allSettled([client.customers.get(a.id), client.customers.get("nobody")]);
    expect(urls).toHaveLength(1);
    expect(found).toEqual({ status: "fulfilled", value: a });
    expect(missing.status).toBe("rejected");
    expect((missing as PromiseRejectedResult).reason).toBeInstanceOf(NotFoundError);
  });
});
