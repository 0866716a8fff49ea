import type { OpenAPIObject } from "trpc-to-openapi";

/**
 * What "Try it out" on /docs sends by default. Without examples Swagger UI invents values from the schemas'
 * patterns (a price of 1000000000.000001, a contract ending before it starts), which the server refuses. These tell
 * one story a fresh account can replay in order: a customer whose externalId the later calls name, a meter of API
 * calls, a contract pricing them, usage of that meter. Ids the service makes itself (contracts, invoices, entries,
 * events, endpoints, deliveries, tokens, accounts) cannot be known in advance: theirs are well-formed ids that
 * answer 404 until replaced by a real one.
 */
interface RequestExample {
  parameters?: Record<string, string | number>;
  body?: unknown;
}

const CUSTOMER = "acme-001";
const METER = "api-calls";
const PLAN = "pro";
/** A well-formed service id (24 hex characters): the shape of every id the service makes. */
const SERVICE_ID = "6955b90012ab34cd56ef7890";

export const REQUEST_EXAMPLES: Record<string, RequestExample> = {
  "post /admin/accounts": { body: { name: "Acme Corp billing" } },
  "get /admin/accounts/{accountId}": { parameters: { accountId: SERVICE_ID } },
  "patch /admin/accounts/{accountId}": {
    parameters: { accountId: SERVICE_ID },
    body: {
      invoicePrefix: "ACME",
      legalName: "Acme Billing Ltd",
      address: { country: "US", city: "Springfield", postalCode: "62701" },
      taxId: "US12-3456789",
      email: "billing@acme.example",
    },
  },
  "post /admin/accounts/{accountId}/tokens": {
    parameters: { accountId: SERVICE_ID },
    body: { scope: "read" },
  },
  "get /admin/accounts/{accountId}/tokens": { parameters: { accountId: SERVICE_ID } },
  "post /admin/tokens/{tokenId}/rotate": {
    parameters: { tokenId: SERVICE_ID },
    body: { graceSeconds: 3600 },
  },
  "delete /admin/tokens/{tokenId}": { parameters: { tokenId: SERVICE_ID } },
  "post /customers": {
    body: {
      name: "Acme Corp",
      externalId: CUSTOMER,
      contacts: [{ name: "Jane Doe", email: "billing@acme.example", receiveInvoiceEmail: true }],
      address: { country: "US", city: "Springfield", postalCode: "62701" },
    },
  },
  "patch /customers/{customerId}": {
    parameters: { customerId: CUSTOMER },
    body: { aliases: ["acme-eu"] },
  },
  "get /customers/{customerId}": { parameters: { customerId: CUSTOMER } },
  "get /customers/name/{name}": { parameters: { name: "Acme Corp" } },
  "post /contracts": {
    body: {
      customerId: CUSTOMER,
      name: "Acme Corp 2026",
      startDate: "2026-01-01T00:00:00Z",
      endDate: "2027-01-01T00:00:00Z",
      products: [
        {
          displayName: "Platform fee",
          scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
          pricing: { type: "FLAT", price: 500 },
        },
        {
          displayName: "API calls",
          catalogProductId: METER,
          scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
          pricing: { type: "PER_UNIT", price: 0.005 },
        },
      ],
    },
  },
  "get /contracts/{contractId}": { parameters: { contractId: SERVICE_ID } },
  "patch /contracts/{contractId}": {
    parameters: { contractId: SERVICE_ID },
    body: { status: "Inactive", effectiveFrom: "2026-03-01T00:00:00Z" },
  },
  "post /contracts/{contractId}/terminate": {
    parameters: { contractId: SERVICE_ID },
    body: { at: "2026-12-01T00:00:00Z", reason: "Moved to a new plan" },
  },
  "get /contracts/{contractId}/history": { parameters: { contractId: SERVICE_ID } },
  "post /contracts/{contractId}/seats": {
    parameters: { contractId: SERVICE_ID },
    body: { product: "Seats", quantity: 30, effectiveFrom: "2026-04-11T00:00:00Z" },
  },
  "get /contracts/{contractId}/seats": { parameters: { contractId: SERVICE_ID } },
  "delete /contracts/{contractId}": { parameters: { contractId: SERVICE_ID } },
  "post /plans": {
    body: {
      key: PLAN,
      name: "Pro",
      currency: "USD",
      products: [
        {
          displayName: "Platform fee",
          scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
          pricing: { type: "FLAT", price: 49 },
        },
      ],
      creditGrants: [{ amount: 100, recurrence: { every: { unit: "MONTH", value: 1 }, rollover: { maxAmount: 50 } } }],
    },
  },
  "get /plans/{planId}": { parameters: { planId: PLAN } },
  "get /plans/{planId}/versions/{version}": { parameters: { planId: PLAN, version: 1 } },
  "post /plans/{planId}/versions": {
    parameters: { planId: PLAN },
    body: {
      products: [
        {
          displayName: "Platform fee",
          scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
          pricing: { type: "FLAT", price: 59 },
        },
      ],
    },
  },
  "post /plans/{planId}/archive": { parameters: { planId: PLAN } },
  "get /plans/{planId}/contracts": { parameters: { planId: PLAN, version: 1 } },
  "post /plans/{planId}/migrations": {
    parameters: { planId: PLAN },
    body: { fromVersions: [1], toVersion: 2, effective: "NEXT_CYCLE" },
  },
  "get /plans/{planId}/migrations/{migrationId}": { parameters: { planId: PLAN, migrationId: SERVICE_ID } },
  "post /plans/{planId}/simulate": {
    parameters: { planId: PLAN },
    body: {
      from: "2026-01-01T00:00:00Z",
      to: "2026-02-01T00:00:00Z",
      products: [
        {
          displayName: "Platform fee",
          scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
          pricing: { type: "FLAT", price: 69 },
        },
      ],
    },
  },
  "post /coupons": {
    body: { code: "WELCOME20", discount: { type: "PERCENT", value: 20 }, duration: { cycles: 3 }, maxRedemptions: 100 },
  },
  "post /coupons/{code}/archive": { parameters: { code: "WELCOME20" } },
  "post /contracts/{contractId}/coupons": { parameters: { contractId: SERVICE_ID }, body: { code: "WELCOME20" } },
  "get /contracts/{contractId}/coupons": { parameters: { contractId: SERVICE_ID } },
  "post /measurements": {
    body: { customerId: CUSTOMER, meterId: METER, usageDate: { year: 2026, month: 1, day: 15 }, value: 1250 },
  },
  "post /meters": {
    body: { key: METER, displayName: "API calls", eventName: "api_call", aggregation: "COUNT" },
  },
  "get /meters/{meterId}": { parameters: { meterId: METER } },
  "patch /meters/{meterId}": {
    parameters: { meterId: METER },
    body: { displayName: "API requests" },
  },
  "post /tax-rates": { body: { code: "VAT_DE_19", name: "VAT 19 %", rate: 19 } },
  "get /tax-rates/{taxRateId}": { parameters: { taxRateId: "VAT_DE_19" } },
  "patch /tax-rates/{taxRateId}": { parameters: { taxRateId: "VAT_DE_19" }, body: { name: "USt 19 %" } },
  "delete /tax-rates/{taxRateId}": { parameters: { taxRateId: "VAT_DE_19" } },
  "get /usage": {
    parameters: { customerId: CUSTOMER, meterKey: METER, startDate: "2026-01-01", endDate: "2026-02-01" },
  },
  "get /customers/{customerId}/entitlements": { parameters: { customerId: CUSTOMER } },
  "get /customers/{customerId}/entitlements/{meterKey}": { parameters: { customerId: CUSTOMER, meterKey: METER } },
  "post /customers/{customerId}/reservations": {
    parameters: { customerId: CUSTOMER },
    body: { meterKey: METER, amount: 10, ttlSeconds: 60, ref: "req-7f3a-reserve" },
  },
  "post /reservations/{id}/settle": { parameters: { id: SERVICE_ID }, body: { amount: 7 } },
  "get /reservations/{id}": { parameters: { id: SERVICE_ID } },
  "post /alerts": { body: { customerId: CUSTOMER, meterKey: METER, thresholds: [1000, 5000], period: "CYCLE" } },
  "get /alerts/{alertId}": { parameters: { alertId: SERVICE_ID } },
  "delete /alerts/{alertId}": { parameters: { alertId: SERVICE_ID } },
  "post /credits": {
    body: { customerId: CUSTOMER, amount: 100, type: "Grant", priority: 10 },
  },
  "get /credits": { parameters: { customerId: CUSTOMER } },
  "get /credits/balance": { parameters: { customerId: CUSTOMER } },
  "post /credits/{entryId}/void": { parameters: { entryId: SERVICE_ID } },
  "post /credits/{entryId}/recurrence/cancel": { parameters: { entryId: SERVICE_ID } },
  "post /events": {
    body: {
      events: [
        {
          name: "api_call",
          timestamp: "2026-01-15T09:30:00Z",
          customerAlias: CUSTOMER,
          ref: "req-2026-01-15-0001",
          data: { endpoint: "/v1/search", region: "eu-west" },
        },
        {
          name: "api_call",
          timestamp: "2026-01-15T09:31:12+01:00",
          customerAlias: CUSTOMER,
          ref: "req-2026-01-15-0002",
          data: { endpoint: "/v1/export", region: "eu-west" },
        },
      ],
    },
  },
  "get /events": {
    parameters: { startTime: "2026-01-01T00:00:00Z", endTime: "2026-02-01T00:00:00Z", eventName: "api_call" },
  },
  "get /events/{eventId}": { parameters: { eventId: SERVICE_ID } },
  "post /backfills": {
    body: {
      customerId: CUSTOMER,
      meterKey: METER,
      from: "2026-01-15T00:00:00Z",
      to: "2026-01-16T00:00:00Z",
      mode: "REPLACE",
      events: [
        {
          name: "api_call",
          timestamp: "2026-01-15T09:30:00Z",
          customerAlias: CUSTOMER,
          ref: "replay-2026-01-15-0001",
          data: { endpoint: "/v1/search", region: "eu-west" },
        },
      ],
    },
  },
  "get /backfills": { parameters: { limit: 10 } },
  "get /backfills/{backfillId}": { parameters: { backfillId: SERVICE_ID } },
  "post /backfills/{backfillId}/commit": { parameters: { backfillId: SERVICE_ID } },
  "post /backfills/{backfillId}/revert": { parameters: { backfillId: SERVICE_ID } },
  "post /events/{eventId}/void": {
    parameters: { eventId: SERVICE_ID },
    body: { reason: "Sent twice by a retrying client" },
  },
  "post /invoices/preview": { body: { contractId: SERVICE_ID } },
  "post /invoices/simulate": {
    body: {
      customerId: CUSTOMER,
      startDate: "2026-01-01T00:00:00Z",
      endDate: "2026-02-01T00:00:00Z",
      contractId: SERVICE_ID,
      products: [
        {
          displayName: "API calls",
          catalogProductId: "api_call",
          pricing: {
            type: "GRADUATED",
            tiers: [
              { upTo: 10000, unitPrice: 0.002 },
              { upTo: null, unitPrice: 0.001 },
            ],
          },
        },
      ],
    },
  },
  "get /invoices": { parameters: { customerId: CUSTOMER } },
  "get /invoices/{invoiceId}": { parameters: { invoiceId: SERVICE_ID } },
  "post /invoices/{invoiceId}/payments": {
    parameters: { invoiceId: SERVICE_ID },
    body: { amount: 120.5, date: "2026-02-10T00:00:00Z", paymentMethod: "wire", transactionId: "bank-2026-0210-17" },
  },
  "get /invoices/{invoiceId}/payments": { parameters: { invoiceId: SERVICE_ID } },
  "get /invoices/{invoiceId}/adjustments": { parameters: { invoiceId: SERVICE_ID } },
  "post /invoices/{invoiceId}/void": { parameters: { invoiceId: SERVICE_ID }, body: { reason: "Issued in error" } },
  "post /credit-notes": {
    body: { invoiceId: SERVICE_ID, amount: 25, reason: "PRODUCT_UNSATISFACTORY", refund: "OFFSET" },
  },
  "get /reports/revenue": {
    parameters: { from: "2026-01-01T00:00:00Z", to: "2026-04-01T00:00:00Z", interval: "MONTH", currency: "USD" },
  },
  "get /reports/receivables": { parameters: { asOf: "2026-07-10T00:00:00Z", currency: "USD" } },
  "get /reports/collections": {
    parameters: { from: "2026-07-01T00:00:00Z", to: "2026-08-01T00:00:00Z", currency: "USD" },
  },
  "post /exports": {
    body: { kind: "invoices", from: "2026-01-01T00:00:00Z", to: "2026-04-01T00:00:00Z", format: "csv" },
  },
  "get /exports/{exportId}": { parameters: { exportId: SERVICE_ID } },
  "get /reports/mrr": {
    parameters: { from: "2026-01-01T00:00:00Z", to: "2026-04-01T00:00:00Z", currency: "USD", customerId: CUSTOMER },
  },
  "get /credit-notes": { parameters: { customerId: CUSTOMER } },
  "get /credit-notes/{creditNoteId}": { parameters: { creditNoteId: SERVICE_ID } },
  "post /invoices/{invoiceId}/finalize": { parameters: { invoiceId: SERVICE_ID } },
  "post /invoices/{invoiceId}/collect": { parameters: { invoiceId: SERVICE_ID } },
  "put /payment-providers/stripe": {
    body: { secretKey: "sk_test_51ExampleKey000000", webhookSecret: "whsec_ExampleSigningSecret0000" },
  },
  // Asks the provider to make its customer: answered by the provider once one is connected.
  "post /customers/{customerId}/payment-provider/sync": { parameters: { customerId: CUSTOMER } },
  "post /customers/{customerId}/portal-sessions": {
    parameters: { customerId: CUSTOMER },
    body: { returnUrl: "https://app.example.com/billing", expiresIn: 3600 },
  },
  "post /customers/{customerId}/portal-sessions/revoke": { parameters: { customerId: CUSTOMER } },
  "post /billing-runs": { body: {} },
  // A test account's clock only: a live account (the story's) answers 404.
  "post /test-clock/advance": { body: { to: "2027-02-01T00:00:00Z" } },
  "post /webhook-endpoints": {
    body: {
      url: "https://hooks.acme.example/billing",
      eventTypes: ["invoice.created", "credit.depleted"],
      description: "ERP sync",
    },
  },
  "get /webhook-endpoints/{endpointId}": { parameters: { endpointId: SERVICE_ID } },
  "patch /webhook-endpoints/{endpointId}": {
    parameters: { endpointId: SERVICE_ID },
    body: { status: "DISABLED" },
  },
  "delete /webhook-endpoints/{endpointId}": { parameters: { endpointId: SERVICE_ID } },
  "post /webhook-endpoints/{endpointId}/rotate-secret": {
    parameters: { endpointId: SERVICE_ID },
  },
  "get /webhook-endpoints/{endpointId}/deliveries": {
    parameters: { endpointId: SERVICE_ID },
  },
  "post /webhook-deliveries/{deliveryId}/resend": { parameters: { deliveryId: SERVICE_ID } },
};

interface ExampleTarget {
  parameters?: { name: string; example?: unknown }[];
  requestBody?: { content?: Record<string, { example?: unknown }> };
}

/**
 * Puts each operation's example on its parameters and JSON body (Swagger UI's "Try it out" defaults). Optional
 * query parameters without an example stay empty, so that a default call is not narrowed by a filter by accident.
 */
export function documentRequestExamples(document: OpenAPIObject) {
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(pathItem as Record<string, ExampleTarget>)) {
      const example = REQUEST_EXAMPLES[`${method} ${path}`];
      if (!example) continue;
      for (const parameter of operation.parameters ?? []) {
        const value = example.parameters?.[parameter.name];
        if (value !== undefined) parameter.example = value;
      }
      const json = operation.requestBody?.content?.["application/json"];
      if (json && example.body !== undefined) json.example = example.body;
    }
  }
}
