import { afterEach, describe, expect, it, vi } from "vitest";
import * as sdk from "../src/index.js";
import {
  AuthenticationError,
  BillingError,
  ConflictError,
  ConnectionError,
  createBillingClient,
  NotFoundError,
  PayloadTooLargeError,
  ServerError,
  TimeoutError,
  ValidationError,
} from "../src/index.js";
import { countingFetch, newClient, rejectionOf, storedMeasurements, useTestServer } from "./helpers.js";

const ctx = useTestServer();
afterEach(() => vi.restoreAllMocks());

/** The REST answer to the same mistake: the SDK must report the very code, message and issues the server gave. */
async function restError(method: string, path: string, token: string, body?: unknown) {
  const { status, body: answer } = await ctx.server.rest(method, path, { token, body });
  return { status, code: answer.code, message: answer.message, issues: answer.issues ?? [] };
}

const fields = (error: unknown) => {
  const { status, code, message, issues } = error as BillingError;
  return { status, code, message, issues };
};

describe("errors carry the server's code, status and message", () => {
  it("ValidationError, with the invalid fields in issues", async () => {
    const { client, token } = await newClient(ctx.server);
    const error = await rejectionOf(client.customers.list({ limit: 0 }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toBeInstanceOf(BillingError);
    expect(fields(error)).toEqual(await restError("GET", "/customers?limit=0", token));
    expect(fields(error)).toMatchObject({
      code: "BAD_REQUEST",
      status: 400,
      issues: [{ path: "limit", message: expect.any(String) }],
    });

    const period = { startTime: "2024-02-01T00:00:00Z", endTime: "2024-01-01T00:00:00Z" };
    const backwards = await rejectionOf(client.events.query(period));
    expect(backwards).toBeInstanceOf(ValidationError);
    expect(fields(backwards)).toEqual(await restError("GET", `/events?${new URLSearchParams(period)}`, token));
    expect((backwards as ValidationError).issues).toEqual([
      { path: "startTime", message: "must not be after endTime" },
    ]);
  });

  it("AuthenticationError for an unknown token", async () => {
    const client = createBillingClient({ baseUrl: ctx.server.url, token: "bill_unknown" });
    const error = await rejectionOf(client.contracts.list());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toBeInstanceOf(BillingError);
    expect(fields(error)).toEqual(await restError("GET", "/contracts", "bill_unknown"));
    expect(error).toMatchObject({
      name: "AuthenticationError",
      code: "UNAUTHORIZED",
      message: "Unknown or revoked token",
    });
  });

  it("NotFoundError for a resource the account does not have", async () => {
    const { client, token } = await newClient(ctx.server);
    const error = await rejectionOf(client.customers.get("nobody"));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toBeInstanceOf(BillingError);
    expect(fields(error)).toEqual(await restError("GET", "/customers/nobody", token));
    expect(error).toMatchObject({ code: "NOT_FOUND", status: 404, message: "Customer not found" });
  });

  it("ConflictError for a taken name", async () => {
    const { client, token } = await newClient(ctx.server);
    await client.customers.create({ name: "Dup" });
    const error = await rejectionOf(client.customers.create({ name: "Dup" }));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toBeInstanceOf(BillingError);
    expect(fields(error)).toEqual(await restError("POST", "/customers", token, { name: "Dup" }));
    expect(error).toMatchObject({ code: "CONFLICT", message: 'A customer named "Dup" already exists' });
  });

  it("LimitReachedError, a ConflictError with `remaining`, for a reservation that does not fit", async () => {
    const { client, token } = await newClient(ctx.server);
    const customer = await client.customers.create({ name: "Capped", aliases: ["capped"] });
    await client.meters.create({ key: "tokens", eventName: "llm", aggregation: "SUM", valueProperty: "n" });
    const commitment = { units: 100, price: 1 };
    const products = [{ displayName: "LLM", catalogProductId: "tokens", commitment }];
    await client.contracts.create({
      customerId: customer.id,
      name: "Capped",
      startDate: "2020-01-01T00:00:00Z",
      products,
    });
    await client.reservations.create(customer.id, { meterKey: "tokens", amount: 60, ttlSeconds: 600, ref: "a" });
    const input = { meterKey: "tokens", amount: 41, ttlSeconds: 600, ref: "b" };
    // 100 − 60 held = 40 remaining: 41 does not fit.
    const error = await rejectionOf(client.reservations.create(customer.id, input));
    expect(error).toBeInstanceOf(sdk.LimitReachedError);
    expect(error).toBeInstanceOf(ConflictError);
    expect(fields(error)).toEqual(await restError("POST", `/customers/${customer.id}/reservations`, token, input));
    expect(error).toMatchObject({ code: "LIMIT_REACHED", status: 409, remaining: 40 });
  });

  it("PayloadTooLargeError for a body over 5 MiB, sent once and storing nothing", async () => {
    const { accountId, token } = await ctx.server.newAccount();
    const { fetch, urls } = countingFetch();
    const client = createBillingClient({ baseUrl: ctx.server.url, token, fetch });
    const { id: customerId } = await client.customers.create({ name: "Big" });
    urls.length = 0;

    const huge = "x".repeat(5 * 1024 * 1024 + 1);
    // measurements.create is retried on transient failures: a 413 is not one.
    const error = await rejectionOf(
      client.measurements.create({ customerId, meterId: huge, usageDate: { year: 2024, month: 1, day: 1 }, value: 1 }),
    );
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error).toBeInstanceOf(BillingError);
    expect(error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413 });
    expect(urls).toHaveLength(1);
    expect((await storedMeasurements(ctx.server, accountId, customerId, huge, "2024-01-01")).count).toBe(0);

    // The message is the one the server's tRPC endpoint sends for this body.
    const raw = await globalThis.fetch(`${ctx.server.url}/trpc/customers.create?batch=1`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ 0: { name: huge } }),
    });
    const [{ error: answer }] = (await raw.json()) as [{ error: { message: string } }];
    expect((error as BillingError).message).toBe(answer.message);
  });

  it("ServerError for a fault of the server, without its cause", async () => {
    // Not retried: a retry of a keyed call that met a 5xx gets OutcomeUnknownError (retries.test.ts).
    const { client, token } = await newClient(ctx.server, { maxRetries: 0 });
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(ctx.server.service.repositories.customers, "create").mockRejectedValue(new Error("disk on fire"));
    const error = await rejectionOf(client.customers.create({ name: "Unlucky" }));
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toBeInstanceOf(BillingError);
    expect(fields(error)).toEqual(await restError("POST", "/customers", token, { name: "Unlucky" }));
    expect(error).toMatchObject({ code: "INTERNAL_SERVER_ERROR", message: "Internal server error" });
  });

  it("ConnectionError when the server cannot be reached", async () => {
    const client = createBillingClient({ baseUrl: "http://127.0.0.1:9", token: "bill_x", maxRetries: 0 });
    const error = await rejectionOf(client.invoices.list());
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toBeInstanceOf(BillingError);
    expect(error).toMatchObject({ name: "ConnectionError", code: "CONNECTION_ERROR", status: undefined });
  });

  it("TimeoutError when the server answers after timeoutMs", async () => {
    const { token } = await ctx.server.newAccount();
    const customers = ctx.server.service.repositories.customers;
    const list = customers.list.bind(customers);
    vi.spyOn(customers, "list").mockImplementation(async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      return list(...args);
    });
    const client = createBillingClient({ baseUrl: ctx.server.url, token, timeoutMs: 200, maxRetries: 0 });
    const error = await rejectionOf(client.customers.list());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(BillingError);
    expect(error).toMatchObject({ name: "TimeoutError", code: "TIMEOUT", status: undefined });
  });
});

describe("the package root", () => {
  it("exports every error class, each a BillingError", () => {
    const classes = {
      ValidationError: sdk.ValidationError,
      AuthenticationError: sdk.AuthenticationError,
      PermissionError: sdk.PermissionError,
      NotFoundError: sdk.NotFoundError,
      ConflictError: sdk.ConflictError,
      LimitReachedError: sdk.LimitReachedError,
      RequestInProgressError: sdk.RequestInProgressError,
      OutcomeUnknownError: sdk.OutcomeUnknownError,
      PayloadTooLargeError: sdk.PayloadTooLargeError,
      RateLimitError: sdk.RateLimitError,
      ServerError: sdk.ServerError,
      ConnectionError: sdk.ConnectionError,
      TimeoutError: sdk.TimeoutError,
      RequestAbortedError: sdk.RequestAbortedError,
    };
    for (const [name, ErrorClass] of Object.entries(classes)) {
      const error = new ErrorClass("m", "BAD_REQUEST", 400);
      expect(error).toBeInstanceOf(sdk.BillingError);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe(name);
    }
  });
});
