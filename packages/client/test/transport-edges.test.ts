import { describe, expect, it } from "vitest";
import { createBillingClient, NotFoundError, PayloadTooLargeError, TimeoutError } from "../src/index.js";
import { countingFetch, newClient, rejectionOf, useTestServer } from "./helpers.js";

const ctx = useTestServer();

describe("transport edge cases", () => {
  it("sends a read whose input would not fit in a URL, and gets the server's answer", async () => {
    const { token } = await ctx.server.newAccount();
    const { fetch, urls } = countingFetch();
    const client = createBillingClient({ baseUrl: ctx.server.url, token, fetch, maxRetries: 0 });
    // A 9000-character name is longer than any URL limit; the server answers 400 (names are at most 200).
    const error = await rejectionOf(client.customers.getByName("x".repeat(9_000)));
    expect(error).toMatchObject({ code: "BAD_REQUEST", status: 400 });
    const existing = await rejectionOf(client.customers.getByName("y".repeat(150)));
    expect(existing).toBeInstanceOf(NotFoundError);
    // Each read was one request whose input travelled in the body: no URL carries the name.
    expect(urls).toHaveLength(2);
    for (const url of urls) {
      expect(url.startsWith(ctx.server.url)).toBe(true);
      expect(url).not.toMatch(/xxx|yyy|input=/);
      expect(url.length).toBeLessThan(ctx.server.url.length + 100);
    }
  });

  it("types a proxy's non-JSON 413 by its status and does not repeat it", async () => {
    const { client: plain, token } = await newClient(ctx.server);
    const { id: customerId } = await plain.customers.create({ name: "Behind a proxy" });
    let calls = 0;
    const fetch: typeof globalThis.fetch = async () => {
      calls += 1;
      return new Response("<html><h1>413 Request Entity Too Large</h1></html>", {
        status: 413,
        headers: { "content-type": "text/html" },
      });
    };
    const client = createBillingClient({ baseUrl: ctx.server.url, token, fetch });
    const error = await rejectionOf(
      client.measurements.create({ customerId, meterId: "m", usageDate: { year: 2024, month: 1, day: 1 }, value: 1 }),
    );
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413 });
    expect(calls).toBe(1);
  });

  it("times out even when a custom fetch ignores the abort signal", async () => {
    const { token } = await ctx.server.newAccount();
    const ignoring: typeof globalThis.fetch = () => new Promise(() => {});
    const client = createBillingClient({
      baseUrl: ctx.server.url,
      token,
      fetch: ignoring,
      timeoutMs: 100,
      maxRetries: 0,
    });
    await expect(client.customers.list()).rejects.toBeInstanceOf(TimeoutError);
  }, 3_000);
});
