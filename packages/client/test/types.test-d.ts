import type * as shared from "@billing/shared";
import { describe, expectTypeOf, it } from "vitest";
import {
  type Account,
  type AutoPaginator,
  type BillingError,
  type Contract,
  type ContractCreateParams,
  type ContractList,
  type CreditLedgerEntry,
  type CreditList,
  type Customer,
  type CustomerList,
  createAdminClient,
  createBillingClient,
  type Event,
  type EventIngestResult,
  type EventList,
  type Invoice,
  type InvoiceList,
  type KeyedRequestOptions,
  type Measurement,
  type MeasurementCreateParams,
  type NewToken,
  type RequestOptions,
  type RetryMode,
  type UnretriedRequestOptions,
} from "../src/index.js";

const client = createBillingClient({ baseUrl: "http://127.0.0.1:3000", token: "t" });
const admin = createAdminClient({ baseUrl: "http://127.0.0.1:3000", token: "t" });
const period = { startTime: "2024-01-01T00:00:00Z", endTime: "2024-02-01T00:00:00Z" };

describe("types come from the shared schemas", () => {
  it("returns the Customer type of the shared schema", () => {
    expectTypeOf(client.customers.get).returns.resolves.toEqualTypeOf<Customer>();
    expectTypeOf(client.customers.getByName).returns.resolves.toEqualTypeOf<Customer>();
    expectTypeOf(client.customers.create).returns.resolves.toEqualTypeOf<Customer>();
    expectTypeOf(client.customers.update).returns.resolves.toEqualTypeOf<Customer>();
    expectTypeOf(client.customers.list).returns.resolves.toEqualTypeOf<CustomerList>();
    expectTypeOf(client.customers.listAll()).toEqualTypeOf<AutoPaginator<CustomerList, Customer>>();
  });

  it("takes the schemas' inputs", () => {
    expectTypeOf<Omit<ContractCreateParams, "currency">>().toEqualTypeOf<
      Omit<shared.ContractCreateInput, "currency">
    >();
    expectTypeOf<MeasurementCreateParams>().toEqualTypeOf<shared.MeasurementCreate>();
    expectTypeOf<Customer>().toEqualTypeOf<shared.Customer>();
    expectTypeOf<EventList>().toEqualTypeOf<shared.EventList>();
  });

  it("returns the Contract types", () => {
    expectTypeOf(client.contracts.create).parameter(0).toEqualTypeOf<ContractCreateParams>();
    expectTypeOf(client.contracts.create).returns.resolves.toEqualTypeOf<Contract>();
    expectTypeOf(client.contracts.get).returns.resolves.toEqualTypeOf<Contract>();
    expectTypeOf(client.contracts.delete).returns.resolves.toEqualTypeOf<Contract>();
    expectTypeOf(client.contracts.list).returns.resolves.toEqualTypeOf<ContractList>();
    expectTypeOf(client.contracts.listAll()).toEqualTypeOf<AutoPaginator<ContractList, Contract>>();
  });

  it("returns the Invoice types", () => {
    expectTypeOf(client.invoices.get).returns.resolves.toEqualTypeOf<Invoice>();
    expectTypeOf(client.invoices.list).returns.resolves.toEqualTypeOf<InvoiceList>();
    expectTypeOf(client.invoices.listAll()).toEqualTypeOf<AutoPaginator<InvoiceList, Invoice>>();
  });

  it("returns the Measurement, credit and event types", () => {
    expectTypeOf(client.measurements.create).parameter(0).toEqualTypeOf<MeasurementCreateParams>();
    expectTypeOf(client.measurements.create).returns.resolves.toEqualTypeOf<Measurement>();
    expectTypeOf(client.credits.grant).returns.resolves.toEqualTypeOf<CreditLedgerEntry>();
    expectTypeOf(client.credits.list).returns.resolves.toEqualTypeOf<CreditList>();
    expectTypeOf(client.credits.listAll({ customerId: "c" })).toEqualTypeOf<
      AutoPaginator<CreditList, CreditLedgerEntry>
    >();
    expectTypeOf(client.events.ingest).returns.resolves.toEqualTypeOf<EventIngestResult>();
    expectTypeOf(client.events.query).returns.resolves.toEqualTypeOf<EventList>();
    expectTypeOf(client.events.queryAll(period)).toEqualTypeOf<AutoPaginator<EventList, Event>>();
    expectTypeOf(client.events.queryAll(period).toArray()).resolves.toEqualTypeOf<Event[]>();
  });

  it("returns the admin types", () => {
    expectTypeOf(admin.accounts.create).returns.resolves.toEqualTypeOf<{
      account: Account;
      tokenId: string;
      token: string;
    }>();
    expectTypeOf(admin.tokens.create).returns.resolves.toEqualTypeOf<NewToken>();
    expectTypeOf(admin.tokens.revoke).returns.resolves.toEqualTypeOf<{ tokenId: string; revokedAt: string }>();
  });

  it("refuses inputs of the wrong type at compile time", () => {
    // @ts-expect-error name must be a string
    void client.customers.create({ name: 5 });
    // @ts-expect-error dueDays is an enum
    void client.customers.update("id", { dueDays: "TOMORROW" });
    // @ts-expect-error limit is a number
    void client.customers.list({ limit: "10" });
    // @ts-expect-error the id is a string
    void client.customers.get(42);
    // @ts-expect-error the cursor belongs to the paginator
    void client.customers.listAll({ cursor: "c" });
  });

  it("refuses wrong contract inputs", () => {
    // @ts-expect-error startDate is required
    void client.contracts.create({ customerId: "c", name: "n" });
    // @ts-expect-error status is an enum
    void client.contracts.create({ customerId: "c", name: "n", startDate: "2024-01-01T00:00:00Z", status: "Paused" });
    // @ts-expect-error the id is a string
    void client.contracts.delete({ contractId: "k" });
    // @ts-expect-error limit is a number
    void client.contracts.listAll({ limit: "4" });
  });

  it("refuses wrong invoice inputs", () => {
    // @ts-expect-error the id is a string
    void client.invoices.get(1);
    // @ts-expect-error customerId is a string
    void client.invoices.list({ customerId: 7 });
  });

  it("refuses wrong measurement inputs", () => {
    // @ts-expect-error usageDate is { year, month, day }, not a string
    void client.measurements.create({ customerId: "c", meterId: "m", usageDate: "2024-01-01", value: 1 });
    const textValue = { customerId: "c", meterId: "m", usageDate: { year: 2024, month: 1, day: 1 }, value: "1" };
    // @ts-expect-error value is a number
    void client.measurements.create(textValue);
  });

  it("refuses wrong credit inputs", () => {
    // @ts-expect-error callers may only grant: Usage entries are the service's
    void client.credits.grant({ customerId: "c", amount: 1, type: "Usage" });
    // @ts-expect-error the customer is required
    void client.credits.list({ limit: 10 });
    // @ts-expect-error the customer is required
    void client.credits.listAll({});
  });

  it("refuses wrong event inputs", () => {
    // @ts-expect-error ingest takes the array of events itself
    void client.events.ingest({ events: [] });
    const numericData = { name: "n", timestamp: "2024-01-01T00:00:00Z", customerAlias: "a", ref: "r", data: { n: 1 } };
    // @ts-expect-error data values are strings
    void client.events.ingest([numericData]);
    // @ts-expect-error endTime is required
    void client.events.query({ startTime: "2024-01-01T00:00:00Z" });
    // @ts-expect-error eventName is a string
    void client.events.queryAll({ ...period, eventName: 3 });
  });

  it("refuses wrong admin inputs", () => {
    // @ts-expect-error accounts.create takes the name itself
    void admin.accounts.create({ name: "Acme" });
    // @ts-expect-error the account id is a string
    void admin.tokens.create(12);
    // @ts-expect-error the token id is a string
    void admin.tokens.revoke();
  });
});

describe("per-call options, the last argument of every method", () => {
  it("keyed methods take an idempotencyKey", () => {
    expectTypeOf(client.customers.create).parameter(1).toEqualTypeOf<KeyedRequestOptions | undefined>();
    expectTypeOf(client.customers.update).parameter(2).toEqualTypeOf<KeyedRequestOptions | undefined>();
    expectTypeOf(client.contracts.create).parameter(1).toEqualTypeOf<KeyedRequestOptions | undefined>();
    expectTypeOf(client.contracts.delete).parameter(1).toEqualTypeOf<KeyedRequestOptions | undefined>();
    expectTypeOf(client.credits.grant).parameter(1).toEqualTypeOf<KeyedRequestOptions | undefined>();
    expectTypeOf(client.meters.create).parameter(1).toEqualTypeOf<KeyedRequestOptions | undefined>();
    expectTypeOf(client.contracts.update).parameter(2).toEqualTypeOf<KeyedRequestOptions | undefined>();
    expectTypeOf(client.contracts.terminate).parameter(2).toEqualTypeOf<KeyedRequestOptions | undefined>();
    expectTypeOf(client.invoices.pay).parameter(2).toEqualTypeOf<KeyedRequestOptions | undefined>();
    expectTypeOf(client.invoices.void).parameter(2).toEqualTypeOf<KeyedRequestOptions | undefined>();
    // The service keeps POST /invoices/{invoiceId}/finalize's answer under its Idempotency-Key, as every mutation's.
    expectTypeOf(client.invoices.finalize).parameter(1).toEqualTypeOf<KeyedRequestOptions | undefined>();
    void client.invoices.finalize("i", { idempotencyKey: "finalize-i" });
    expectTypeOf(client.creditNotes.create).parameter(1).toEqualTypeOf<KeyedRequestOptions | undefined>();
    expectTypeOf(client.taxRates.create).parameter(1).toEqualTypeOf<KeyedRequestOptions | undefined>();
    expectTypeOf(client.alerts.create).parameter(1).toEqualTypeOf<KeyedRequestOptions | undefined>();
    expectTypeOf(client.alerts.delete).parameter(1).toEqualTypeOf<KeyedRequestOptions | undefined>();
    expectTypeOf<KeyedRequestOptions>().toEqualTypeOf<{
      signal?: AbortSignal;
      timeoutMs?: number;
      maxRetries?: number;
      idempotencyKey?: string;
    }>();
  });

  it("methods safe to repeat take signal, timeoutMs and maxRetries", () => {
    expectTypeOf<RequestOptions>().toEqualTypeOf<{ signal?: AbortSignal; timeoutMs?: number; maxRetries?: number }>();
    expectTypeOf(client.customers.get).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.customers.getByName).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.customers.list).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.customers.listAll).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.contracts.get).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.contracts.list).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.contracts.listAll).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.invoices.get).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.invoices.list).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.invoices.listAll).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.invoices.preview).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.invoices.simulate).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.measurements.create).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.credits.list).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.credits.listAll).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    // Plus `backfillId`: an OPEN backfill that holds the batch apart.
    expectTypeOf(client.events.ingest)
      .parameter(1)
      .toEqualTypeOf<(RequestOptions & { backfillId?: string }) | undefined>();
    expectTypeOf(client.events.query).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.events.queryAll).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.events.explain).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.meters.get).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.meters.update).parameter(2).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.meters.list).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.meters.listAll).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.usage.get).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(client.billing.run).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf(admin.tokens.list).parameter(1).toEqualTypeOf<RequestOptions | undefined>();
  });

  it("admin changes, never retried, take signal and timeoutMs", () => {
    expectTypeOf<UnretriedRequestOptions>().toEqualTypeOf<{ signal?: AbortSignal; timeoutMs?: number }>();
    expectTypeOf(admin.accounts.create).parameter(1).toEqualTypeOf<UnretriedRequestOptions | undefined>();
    expectTypeOf(admin.tokens.create).parameter(2).toEqualTypeOf<UnretriedRequestOptions | undefined>();
    expectTypeOf(admin.tokens.rotate).parameter(2).toEqualTypeOf<UnretriedRequestOptions | undefined>();
    expectTypeOf(admin.tokens.revoke).parameter(1).toEqualTypeOf<UnretriedRequestOptions | undefined>();
  });

  it("refuses an option the method cannot honour", () => {
    // @ts-expect-error a read sends no Idempotency-Key
    void client.customers.get("c", { idempotencyKey: "k" });
    // @ts-expect-error an event batch is deduplicated by `ref`, not by a key
    void client.events.ingest([], { idempotencyKey: "k" });
    // @ts-expect-error listAll sends no key either
    void client.invoices.listAll({}, { idempotencyKey: "k" });
    // @ts-expect-error an admin change is never retried
    void admin.accounts.create("Acme", { maxRetries: 3 });
    // @ts-expect-error nor sent with a key
    void admin.tokens.revoke("t", { idempotencyKey: "k" });
    // @ts-expect-error timeoutMs is a number of milliseconds
    void client.customers.list({}, { timeoutMs: "5s" });
    // @ts-expect-error the key is a string
    void client.credits.grant({ customerId: "c", amount: 1, type: "Grant" }, { idempotencyKey: 42 });
  });

  it("errors carry the answer's request id, and retry modes are named", () => {
    expectTypeOf<BillingError["requestId"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<RetryMode>().toEqualTypeOf<"safe" | "keyed" | "never">();
  });
});
