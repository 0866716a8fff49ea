import type {
  Account,
  Contract,
  ContractCreateInput,
  ContractList,
  CreditLedgerEntry,
  CreditList,
  Customer,
  CustomerList,
  Event,
  EventIngestResult,
  EventList,
  Invoice,
  InvoiceList,
  Measurement,
  MeasurementCreate,
  NewToken,
} from "@billing/shared";
import { describe, expectTypeOf, it } from "vitest";
import { createAdminClient, createBillingClient, type AutoPaginator } from "../src/index.js";

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

  it("returns the Contract types", () => {
    expectTypeOf(client.contracts.create).parameter(0).toEqualTypeOf<ContractCreateInput>();
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
    expectTypeOf(client.measurements.create).parameter(0).toEqualTypeOf<MeasurementCreate>();
    expectTypeOf(client.measurements.create).returns.resolves.toEqualTypeOf<Measurement>();
    expectTypeOf(client.credits.grant).returns.resolves.toEqualTypeOf<CreditLedgerEntry>();
    expectTypeOf(client.credits.list).returns.resolves.toEqualTypeOf<CreditList>();
    expectTypeOf(client.credits.listAll({ customerId: "c" })).toEqualTypeOf<AutoPaginator<CreditList, CreditLedgerEntry>>();
    expectTypeOf(client.events.ingest).returns.resolves.toEqualTypeOf<EventIngestResult>();
    expectTypeOf(client.events.query).returns.resolves.toEqualTypeOf<EventList>();
    expectTypeOf(client.events.queryAll(period)).toEqualTypeOf<AutoPaginator<EventList, Event>>();
    expectTypeOf(client.events.queryAll(period).toArray()).resolves.toEqualTypeOf<Event[]>();
  });

  it("returns the admin types", () => {
    expectTypeOf(admin.accounts.create).returns.resolves.toEqualTypeOf<{ account: Account; token: string }>();
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
    // @ts-expect-error value is a number
    void client.measurements.create({ customerId: "c", meterId: "m", usageDate: { year: 2024, month: 1, day: 1 }, value: "1" });
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
    // @ts-expect-error data values are strings
    void client.events.ingest([{ name: "n", timestamp: "2024-01-01T00:00:00Z", customerAlias: "a", ref: "r", data: { n: 1 } }]);
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
