// Every named type a public method takes or returns is importable from the package entry, and is the type the
// method names: an app can declare a variable of a page (`let page: InvoiceList`) without reaching into the SDK.
import type * as shared from "@billing/shared";
import { describe, expectTypeOf, it } from "vitest";
import {
  type Account,
  type AccountCreated,
  type Alert,
  type AlertList,
  type AutoPaginator,
  type BillingRun,
  type Contract,
  type ContractHistoryEntry,
  type ContractList,
  type CreditBalance,
  type CreditLedgerEntry,
  type CreditList,
  type CreditNote,
  type CreditNoteList,
  type CurrencyCode,
  type CurrentToken,
  type Customer,
  type CustomerList,
  createAdminClient,
  createBillingClient,
  type Entitlement,
  type EventExplanation,
  type EventIngestResult,
  type EventList,
  type Invoice,
  type InvoiceList,
  type InvoicePayment,
  type InvoicePreview,
  type InvoiceSimulation,
  type Measurement,
  type Meter,
  type MeterList,
  type NewToken,
  type Payment,
  type RevokedToken,
  type TaxRate,
  type TaxRateList,
  type TestClock,
  type TestClockAdvanced,
  type TestClockAdvanceParams,
  type TokenList,
  type TokenScope,
  type Usage,
  type WebhookDelivery,
  type WebhookDeliveryList,
  type WebhookDeliveryListParams,
  type WebhookEndpoint,
  type WebhookEndpointCreated,
  type WebhookEndpointCreateParams,
  type WebhookEndpointList,
  type WebhookEndpointListParams,
  type WebhookEndpointUpdateParams,
  type WebhookEvent,
  type WithCurrencyCodes,
  type WithoutCursor,
} from "../src/index.js";

const client = createBillingClient({ baseUrl: "http://127.0.0.1:3000", token: "t" });
const admin = createAdminClient({ baseUrl: "http://127.0.0.1:3000", token: "t" });

describe("the package entry exports every page and result type", () => {
  it("names each page a list returns", () => {
    expectTypeOf(client.customers.list).returns.resolves.toEqualTypeOf<CustomerList>();
    expectTypeOf(client.contracts.list).returns.resolves.toEqualTypeOf<ContractList>();
    expectTypeOf(client.invoices.list).returns.resolves.toEqualTypeOf<InvoiceList>();
    expectTypeOf(client.credits.list).returns.resolves.toEqualTypeOf<CreditList>();
    expectTypeOf(client.creditNotes.list).returns.resolves.toEqualTypeOf<CreditNoteList>();
    expectTypeOf(client.events.query).returns.resolves.toEqualTypeOf<EventList>();
    expectTypeOf(client.meters.list).returns.resolves.toEqualTypeOf<MeterList>();
    expectTypeOf(client.taxRates.list).returns.resolves.toEqualTypeOf<TaxRateList>();
    expectTypeOf(client.alerts.list).returns.resolves.toEqualTypeOf<AlertList>();
    expectTypeOf(client.webhookEndpoints.list).returns.resolves.toEqualTypeOf<WebhookEndpointList>();
    expectTypeOf(client.webhookEndpoints.listDeliveries).returns.resolves.toEqualTypeOf<WebhookDeliveryList>();
    expectTypeOf(admin.tokens.list).returns.resolves.toEqualTypeOf<TokenList>();
    expectTypeOf(client.alerts.listAll()).toEqualTypeOf<AutoPaginator<AlertList, Alert>>();
    expectTypeOf(client.webhookEndpoints.listAllDeliveries("e")).toEqualTypeOf<
      AutoPaginator<WebhookDeliveryList, WebhookDelivery>
    >();
  });

  it("names each result", () => {
    expectTypeOf(client.events.ingest).returns.resolves.toEqualTypeOf<EventIngestResult>();
    expectTypeOf(client.events.explain).returns.resolves.toEqualTypeOf<EventExplanation>();
    expectTypeOf(client.credits.balance).returns.resolves.toEqualTypeOf<CreditBalance>();
    expectTypeOf(client.credits.void).returns.resolves.toEqualTypeOf<CreditLedgerEntry>();
    expectTypeOf(client.contracts.history).returns.resolves.toEqualTypeOf<ContractHistoryEntry[]>();
    expectTypeOf(client.contracts.update).returns.resolves.toEqualTypeOf<Contract>();
    expectTypeOf(client.customers.entitlements).returns.resolves.toEqualTypeOf<Entitlement[]>();
    expectTypeOf(client.invoices.preview).returns.resolves.toEqualTypeOf<InvoicePreview>();
    expectTypeOf(client.invoices.simulate).returns.resolves.toEqualTypeOf<InvoiceSimulation>();
    expectTypeOf(client.invoices.pay).returns.resolves.toEqualTypeOf<InvoicePayment>();
    expectTypeOf<InvoicePayment>().toEqualTypeOf<{ invoice: Invoice; payment: Payment }>();
    expectTypeOf(client.invoices.payments).returns.resolves.toEqualTypeOf<Payment[]>();
    expectTypeOf(client.invoices.finalize).returns.resolves.toEqualTypeOf<Invoice>();
    expectTypeOf(client.creditNotes.create).returns.resolves.toEqualTypeOf<CreditNote>();
    expectTypeOf(client.taxRates.archive).returns.resolves.toEqualTypeOf<TaxRate>();
    expectTypeOf(client.measurements.create).returns.resolves.toEqualTypeOf<Measurement>();
    expectTypeOf(client.meters.get).returns.resolves.toEqualTypeOf<Meter>();
    expectTypeOf(client.usage.get).returns.resolves.toEqualTypeOf<Usage>();
    expectTypeOf(client.billing.run).returns.resolves.toEqualTypeOf<BillingRun>();
    expectTypeOf(client.token.current).returns.resolves.toEqualTypeOf<CurrentToken>();
    expectTypeOf(client.testClock.get).returns.resolves.toEqualTypeOf<TestClock>();
    expectTypeOf(client.testClock.advance).returns.resolves.toEqualTypeOf<TestClockAdvanced>();
    expectTypeOf(client.testClock.advance).parameter(0).toEqualTypeOf<TestClockAdvanceParams>();
    expectTypeOf(admin.accounts.createTest).returns.resolves.toEqualTypeOf<AccountCreated>();
    expectTypeOf<CurrentToken>().toEqualTypeOf<{ id: string; accountId: string; scope: TokenScope }>();
    expectTypeOf(client.webhookEndpoints.create).returns.resolves.toEqualTypeOf<WebhookEndpointCreated>();
    expectTypeOf(client.webhookEndpoints.get).returns.resolves.toEqualTypeOf<WebhookEndpoint>();
    expectTypeOf(client.webhookEndpoints.resendDelivery).returns.resolves.toEqualTypeOf<WebhookDelivery>();
    expectTypeOf(admin.accounts.create).returns.resolves.toEqualTypeOf<AccountCreated>();
    expectTypeOf(admin.tokens.rotate).returns.resolves.toEqualTypeOf<NewToken>();
    expectTypeOf(admin.tokens.revoke).returns.resolves.toEqualTypeOf<RevokedToken>();
  });

  it("names the webhook endpoints' parameters", () => {
    expectTypeOf(client.webhookEndpoints.create).parameter(0).toEqualTypeOf<WebhookEndpointCreateParams>();
    expectTypeOf(client.webhookEndpoints.update).parameter(1).toEqualTypeOf<WebhookEndpointUpdateParams>();
    expectTypeOf(client.webhookEndpoints.list).parameter(0).toEqualTypeOf<WebhookEndpointListParams | undefined>();
    expectTypeOf(client.webhookEndpoints.listDeliveries)
      .parameter(1)
      .toEqualTypeOf<WebhookDeliveryListParams | undefined>();
    expectTypeOf(client.webhookEndpoints.listAll)
      .parameter(0)
      .toEqualTypeOf<WithoutCursor<WebhookEndpointListParams> | undefined>();
  });
});

describe("currency fields are ISO 4217 codes", () => {
  it("types every currency field a CurrencyCode, in answers and in inputs", () => {
    expectTypeOf<Contract["currency"]>().toEqualTypeOf<CurrencyCode>();
    expectTypeOf<Invoice["currency"]>().toEqualTypeOf<CurrencyCode>();
    expectTypeOf<InvoiceList["invoices"][number]["currency"]>().toEqualTypeOf<CurrencyCode>();
    expectTypeOf<CreditNote["currency"]>().toEqualTypeOf<CurrencyCode>();
    expectTypeOf<CreditLedgerEntry["currency"]>().toEqualTypeOf<CurrencyCode>();
    expectTypeOf<CreditBalance["balances"][number]["currency"]>().toEqualTypeOf<CurrencyCode>();
    expectTypeOf<InvoiceSimulation["currency"]>().toEqualTypeOf<CurrencyCode>();
    expectTypeOf<Account["defaultCurrency"]>().toEqualTypeOf<CurrencyCode>();
    expectTypeOf<
      Extract<WebhookEvent, { type: "invoice.created" }>["data"]["currency"]
    >().toEqualTypeOf<CurrencyCode>();
    expectTypeOf(client.contracts.create)
      .parameter(0)
      .toHaveProperty("currency")
      .toEqualTypeOf<CurrencyCode | undefined>();
    expectTypeOf(client.credits.grant)
      .parameter(0)
      .toHaveProperty("currency")
      .toEqualTypeOf<CurrencyCode | undefined>();
  });

  it("is a union of literal codes, and refuses others", () => {
    expectTypeOf<"USD" | "EUR" | "JPY" | "KWD">().toExtend<CurrencyCode>();
    expectTypeOf<string>().not.toExtend<CurrencyCode>();
    // @ts-expect-error not an ISO 4217 code
    void client.credits.grant({ customerId: "c", amount: 1, type: "Grant", currency: "ABC" });
  });

  it("changes nothing else of the schemas' types", () => {
    expectTypeOf<Contract>().toEqualTypeOf<WithCurrencyCodes<shared.Contract>>();
    expectTypeOf<Omit<Contract, "currency">>().toEqualTypeOf<Omit<shared.Contract, "currency">>();
    expectTypeOf<Customer>().toEqualTypeOf<shared.Customer>();
    expectTypeOf<Shape<Invoice>>().toEqualTypeOf<Shape<shared.Invoice>>();
  });
});

/** A type with every currency field widened back to `string`: the schema's own shape. */
type Shape<T> = T extends CurrencyCode
  ? string
  : T extends readonly unknown[]
    ? { [Index in keyof T]: Shape<T[Index]> }
    : T extends object
      ? { [Key in keyof T]: Shape<T[Key]> }
      : T;
