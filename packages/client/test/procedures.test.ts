// Every procedure of the server's router has an SDK method that calls it: each method of both clients is called once
// against a real server (most with arguments the server refuses: the call still names its procedure), and the
// procedures the requests named are held against the router's. A procedure added without its method fails here.
import { describe, expect, it } from "vitest";
import { appRouter } from "../../server/src/routers/index.js";
import { ADMIN_TOKEN } from "../../server/test/support/server.js";
import { createAdminClient, createBillingClient } from "../src/index.js";
import { countingFetch, useTestServer } from "./helpers.js";

const ctx = useTestServer();

/** The procedures a tRPC request URL names: `/trpc/a.b,c.d?batch=1` → ["a.b", "c.d"]. */
const proceduresOf = (url: string) => {
  const { pathname } = new URL(url);
  return pathname.startsWith("/trpc/") ? decodeURIComponent(pathname.slice("/trpc/".length)).split(",") : [];
};

/** Calls every function of `api` (a namespace, or a client of namespaces) once, whatever it answers. */
async function callEvery(api: object): Promise<void> {
  for (const value of Object.values(api)) {
    if (typeof value !== "function") {
      if (value && typeof value === "object") await callEvery(value);
      continue;
    }
    const ID = "000000000000000000000000";
    try {
      const result = value(ID, {}, { maxRetries: 0 });
      // An auto-paginator asks for its first page when iterated.
      if (result && typeof result === "object" && Symbol.asyncIterator in result) {
        for await (const _ of result as AsyncIterable<unknown>) break;
      } else await result;
    } catch {
      // Refused: the request was sent all the same.
    }
  }
}

describe("the SDK covers the API", () => {
  it("has a method calling each procedure of the router", async () => {
    const { server } = ctx;
    const { token } = await server.newAccount();
    const { fetch, urls } = countingFetch();
    await callEvery(createBillingClient({ baseUrl: server.url, token, fetch }));
    await callEvery(createAdminClient({ baseUrl: server.url, token: ADMIN_TOKEN, fetch }));
    const called = new Set(urls.flatMap(proceduresOf));
    const procedures = Object.keys(appRouter._def.procedures).sort();
    expect(procedures.length).toBeGreaterThan(40);
    expect(procedures.filter((procedure) => !called.has(procedure))).toEqual([]);
  });
});
