import { afterAll, beforeAll } from "vitest";
import { startTestServer, type TestServer, type TestServerOptions } from "./server.js";

/**
 * One line for what a test file (or a describe block) sets up once: `make` runs in its `beforeAll`, `dispose` in its
 * `afterAll`. The returned object stands for the made one, which exists only from that `beforeAll` on: a file
 * declares it at the top, its tests and hooks use it. Read any earlier (while tests are collected), it throws.
 */
function madeBeforeAll<T extends object>(
  what: string,
  make: () => Promise<T>,
  dispose?: (made: T) => Promise<void>,
): T {
  let made: T | undefined;
  beforeAll(async () => {
    made = await make();
  });
  if (dispose) afterAll(() => (made ? dispose(made) : undefined));
  return new Proxy({} as T, {
    get(_, key) {
      if (made === undefined) throw new Error(`${what} is made in beforeAll: use it inside tests and hooks`);
      return Reflect.get(made, key);
    },
  });
}

/** A real server for the file (or describe block), on a database of its own, closed after it. */
export function useTestServer(options: TestServerOptions = {}): TestServer {
  return madeBeforeAll(
    "the test server",
    () => startTestServer(options),
    (server) => server.close(),
  );
}

/** An account of `server` and its first token (write scope). */
export interface TestAccount {
  accountId: string;
  token: string;
}

/**
 * An account shared by the file's tests, made once the server is up. With `customer`, the account also gets a
 * customer with those fields (its id: `customerId`). Tests that count what an account holds make their own instead.
 */
export function useAccount(server: TestServer): TestAccount;
export function useAccount(
  server: TestServer,
  options: { customer: Record<string, unknown> },
): TestAccount & { customerId: string };
export function useAccount(server: TestServer, options: { customer?: Record<string, unknown> } = {}) {
  return madeBeforeAll("the account", async () => {
    const account = await server.newAccount();
    if (!options.customer) return account;
    const created = await server.rest("POST", "/customers", { token: account.token, body: options.customer });
    if (created.status !== 201) {
      throw new Error(`could not create a customer: ${created.status} ${JSON.stringify(created.body)}`);
    }
    return { ...account, customerId: created.body.customer.id as string };
  });
}

/** The server's OpenAPI document (`GET /openapi.json`), read once the server is up. */
export function useOpenApiDocument(server: TestServer): any {
  return madeBeforeAll("the OpenAPI document", async () => (await server.rest("GET", "/openapi.json")).body);
}
