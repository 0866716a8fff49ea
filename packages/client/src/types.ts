import type * as schemas from "@billing/shared";
import type { z } from "zod";
import type { CurrencyCode } from "./currency.js";

/** The fields that hold an ISO 4217 code, at any depth of a resource. */
type CurrencyField = "currency" | "defaultCurrency";
type CodeOf<T> = T extends string ? CurrencyCode : T;
type Unchanged = string | number | boolean | bigint | symbol | null | undefined | Date | Uint8Array;

/**
 * A schema's type with its currency fields typed `CurrencyCode` instead of `string`: the shared schema checks them
 * against a list computed at run time, which the compiler sees as `string`, while the SDK knows the list
 * (`CURRENCY_CODES`). Everything else is the schema's type as it is.
 */
export type WithCurrencyCodes<T> = unknown extends T // `unknown` or `any`: a value of any shape, left so
  ? T
  : T extends Unchanged | ((...args: never[]) => unknown)
    ? T
    : T extends readonly unknown[]
      ? { [Index in keyof T]: WithCurrencyCodes<T[Index]> }
      : { [Key in keyof T]: Key extends CurrencyField ? CodeOf<T[Key]> : WithCurrencyCodes<T[Key]> };

/** What a method takes: the schema's input (as callers write it, defaults optional), currencies as codes. */
export type Input<Schema extends z.ZodType> = WithCurrencyCodes<z.input<Schema>>;

// The resources, their pages and the results of the methods, straight from the service's schemas.
export type Account = WithCurrencyCodes<schemas.Account>;
export type AccountCreated = WithCurrencyCodes<schemas.AccountCreated>;
export type Alert = WithCurrencyCodes<schemas.Alert>;
export type AlertList = WithCurrencyCodes<schemas.AlertList>;
export type AlertPeriod = schemas.AlertPeriod;
export type AuditEntry = schemas.AuditEntry;
export type AuditLogPage = schemas.AuditLogPage;
export type ReceivablesReport = WithCurrencyCodes<schemas.ReceivablesReport>;
export type ReceivablesAging = schemas.ReceivablesAging;
export type RevenuePeriod = schemas.RevenuePeriod;
export type RevenueReport = WithCurrencyCodes<schemas.RevenueReport>;
export type MrrContractMove = schemas.MrrContractMove;
export type Export = schemas.Export;
export type Backfill = schemas.Backfill;
export type BackfillList = schemas.BackfillList;
export type MrrMonth = schemas.MrrMonth;
export type MrrReport = WithCurrencyCodes<schemas.MrrReport>;
export type CollectionsReport = WithCurrencyCodes<schemas.CollectionsReport>;
export type AttributionReason = schemas.AttributionReason;
export type BillingRun = WithCurrencyCodes<schemas.BillingRun>;
export type BillingStatus = schemas.BillingStatus;
export type Commitment = WithCurrencyCodes<schemas.Commitment>;
export type Contract = WithCurrencyCodes<schemas.Contract>;
export type ContractHistoryEntry = WithCurrencyCodes<schemas.ContractHistoryEntry>;
export type ContractList = WithCurrencyCodes<schemas.ContractList>;
export type SeatSchedule = schemas.SeatSchedule;
export type Coupon = WithCurrencyCodes<schemas.Coupon>;
export type CouponList = WithCurrencyCodes<schemas.CouponList>;
export type CouponRedemption = WithCurrencyCodes<schemas.CouponRedemption>;
export type Reservation = schemas.Reservation;
export type ContractStatus = schemas.ContractStatus;
export type CreditBalance = WithCurrencyCodes<schemas.CreditBalance>;
export type CreditEntryType = schemas.CreditEntryType;
export type CreditLedgerEntry = WithCurrencyCodes<schemas.CreditLedgerEntry>;
export type CreditList = WithCurrencyCodes<schemas.CreditList>;
export type CreditNote = WithCurrencyCodes<schemas.CreditNote>;
export type CreditNoteList = WithCurrencyCodes<schemas.CreditNoteList>;
/** The token a client calls with, as `token.current()` answers: its id, its account and its scope. */
export type CurrentToken = WithCurrencyCodes<schemas.CurrentToken["token"]>;
export type Customer = WithCurrencyCodes<schemas.Customer>;
export type CustomerList = WithCurrencyCodes<schemas.CustomerList>;
export type Entitlement = WithCurrencyCodes<schemas.Entitlement>;
export type Event = WithCurrencyCodes<schemas.Event>;
export type EventAttribution = WithCurrencyCodes<schemas.EventAttribution>;
export type EventExplanation = WithCurrencyCodes<schemas.EventExplanation>;
export type EventIngestResult = WithCurrencyCodes<schemas.EventIngestResult>;
export type EventList = WithCurrencyCodes<schemas.EventList>;
export type EventVoid = WithCurrencyCodes<schemas.EventVoid>;
export type GrantBalance = WithCurrencyCodes<schemas.GrantBalance>;
export type Invoice = WithCurrencyCodes<schemas.Invoice>;
export type InvoiceList = WithCurrencyCodes<schemas.InvoiceList>;
/** What `invoices.pay` answers: the invoice as the payment left it, and the payment. */
export type InvoicePayment = WithCurrencyCodes<z.infer<typeof schemas.paymentResponse>>;
export type InvoicePreview = WithCurrencyCodes<schemas.InvoicePreview>;
export type InvoiceSimulation = WithCurrencyCodes<schemas.InvoiceSimulation>;
export type InvoiceStatus = schemas.InvoiceStatus;
export type LineItem = WithCurrencyCodes<schemas.LineItem>;
export type LineTax = WithCurrencyCodes<schemas.LineTax>;
export type Measurement = WithCurrencyCodes<schemas.Measurement>;
export type Meter = WithCurrencyCodes<schemas.Meter>;
export type MeterAggregation = schemas.MeterAggregation;
export type MeterFilter = WithCurrencyCodes<schemas.MeterFilter>;
export type MeterList = WithCurrencyCodes<schemas.MeterList>;
export type NewToken = WithCurrencyCodes<schemas.NewToken>;
export type Payment = WithCurrencyCodes<schemas.Payment>;
export type InvoiceAdjustment = WithCurrencyCodes<schemas.InvoiceAdjustment>;
export type PaymentInfo = WithCurrencyCodes<schemas.PaymentInfo>;
export type Plan = WithCurrencyCodes<schemas.Plan>;
export type PlanContractList = WithCurrencyCodes<z.infer<typeof schemas.planContractList>>;
export type PlanList = WithCurrencyCodes<z.infer<typeof schemas.planList>>;
export type PlanMigration = WithCurrencyCodes<schemas.PlanMigration>;
export type PlanOverride = WithCurrencyCodes<schemas.PlanOverride>;
export type PlanSimulation = WithCurrencyCodes<schemas.PlanSimulation>;
export type PlanVersion = WithCurrencyCodes<schemas.PlanVersion>;
export type PriceTier = WithCurrencyCodes<schemas.PriceTier>;
export type Pricing = WithCurrencyCodes<schemas.Pricing>;
export type Product = WithCurrencyCodes<schemas.Product>;
export type ProductGroup = WithCurrencyCodes<schemas.ProductGroup>;
export type RecurringGrant = WithCurrencyCodes<schemas.RecurringGrant>;
export type RevenueBreakdown = WithCurrencyCodes<schemas.RevenueBreakdown>;
export type RevokedToken = WithCurrencyCodes<schemas.RevokedToken>;
export type Scheduling = WithCurrencyCodes<schemas.Scheduling>;
export type TaxRate = WithCurrencyCodes<schemas.TaxRate>;
export type TaxRateList = WithCurrencyCodes<schemas.TaxRateList>;
export type TestClock = WithCurrencyCodes<schemas.TestClock>;
/** What `testClock.advance` answers: the clock as the call left it, and what the call did. */
export type TestClockAdvanced = WithCurrencyCodes<schemas.TestClockAdvanceResponse>;
export type TokenInfo = WithCurrencyCodes<schemas.TokenInfo>;
export type TokenList = WithCurrencyCodes<schemas.TokenList>;
export type TokenScope = schemas.TokenScope;
export type Usage = WithCurrencyCodes<schemas.Usage>;
export type UsageDate = WithCurrencyCodes<schemas.UsageDate>;
export type UsageThresholdCrossed = WithCurrencyCodes<schemas.UsageThresholdCrossed>;
export type WebhookDelivery = WithCurrencyCodes<schemas.WebhookDelivery>;
export type WebhookDeliveryList = WithCurrencyCodes<schemas.WebhookDeliveryList>;
export type WebhookDeliveryStatus = schemas.WebhookDeliveryStatus;
export type WebhookEndpoint = WithCurrencyCodes<schemas.WebhookEndpoint>;
export type WebhookEndpointCreated = WithCurrencyCodes<schemas.WebhookEndpointCreated>;
export type WebhookEndpointList = WithCurrencyCodes<schemas.WebhookEndpointList>;
export type WebhookEndpointStatus = schemas.WebhookEndpointStatus;
/** A delivery's event, typed by `type`: `verifyWebhook` returns it. */
export type WebhookEvent = WithCurrencyCodes<schemas.WebhookEvent>;
export type WebhookEventData = { [Type in WebhookEventType]: WithCurrencyCodes<schemas.WebhookEventData[Type]> };
export type WebhookEventType = schemas.WebhookEventType;
