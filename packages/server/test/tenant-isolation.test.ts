import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestServer } from "./support/harness.js";
import { callProcedure, procedures } from "./support/procedures.js";
import { changedCollections, snapshotData } from "./support/stored-data.js";
import { writesTo } from "./support/stored-writes.js";
import { EVENTS_WINDOW, ids, idsOf, newTenant, type Tenant, tenantOfNothing } from "./support/tenants.js";

/**
 * One account never reaches another's data, on every procedure of the router, over REST and over tRPC. The victim
 * holds some of everything; on each procedure an intruder (a new account with data of its own) sends the victim's
 * ids, names, keys, refs and cursors. What reads or changes something by id answers the intruder exactly as for an
 * id that names nothing (404); a list shows the intruder its own data and none of the victim's; a create finds the
 * victim's unique names and keys free. A refused attempt or a read changes nothing stored (no write of the service
 * changed a document: test/support/stored-writes.ts), and nothing the victim stored has changed after each procedure,
 * document for document.
 * Slow: about 75 s beside other files, growing with every procedure (each tried over REST and tRPC, the victim's
 * stored data compared after each). Split it by router when it passes 90 s.
 */
const server = useTestServer();

/**
 * One request of the intruder, built from the victim's data (or, to compare, from `tenantOfNothing()`) and its own.
 * `notFound`: 404 NOT_FOUND, the very answer to values naming nothing; `asForNothing`: that answer, whatever it is;
 * `ownOnly`: a success, `check` saying what of the intruder's own it shows. No answer names an id of the victim.
 */
interface Attempt {
  input: (victim: Tenant, intruder: Tenant) => Record<string, unknown>;
  expect: "notFound" | "asForNothing" | "ownOnly";
  check?: (answer: any, tenants: { victim: Tenant; intruder: Tenant }) => void | Promise<void>;
}

const JANUARY_20 = { year: 2024, month: 1, day: 20 };
const januaryUsage = (owner: Tenant) => ({ meterKey: owner.meterKey, startDate: "2024-01-01", endDate: "2024-02-01" });
/** A reservation's fields besides its customer and meter. */
const RESERVATION = { amount: 1, ttlSeconds: 60, ref: "intruding" };
/** A simulation of January 2024 (the tenants' first cycle) at a flat price. */
const JANUARY_SIMULATION = {
  startDate: "2024-01-01T00:00:00Z",
  endDate: "2024-02-01T00:00:00Z",
  products: [{ displayName: "Flat", pricing: { type: "FLAT", price: 5 } }],
};
/** A first page listing exactly the intruder's own items of a kind. */
type ListKey =
  | "customers"
  | "contracts"
  | "meters"
  | "taxRates"
  | "coupons"
  | "invoices"
  | "creditNotes"
  | "events"
  | "endpoints"
  | "alerts"
  | "plans";
const ownList = (key: ListKey, of: (owner: Tenant) => string[]) => ({
  expect: "ownOnly" as const,
  check: (answer: any, { intruder }: { intruder: Tenant }) => expect(ids(answer[key])).toEqual(of(intruder)),
});

/**
 * How each procedure is tried. `changesCaller`: an accepted attempt changes the intruder's own data (a create, a
 * run), so each transport gets an intruder of its own.
 */
const TRIED: Record<string, { attempts: Attempt[]; changesCaller?: true }> = {
  "customers.create": {
    changesCaller: true,
    attempts: [
      {
        input: (victim) => ({ name: victim.customerName, externalId: victim.externalId, aliases: [victim.alias] }),
        expect: "ownOnly",
        check: (answer, { victim }) =>
          expect(answer.customer).toMatchObject({ name: victim.customerName, aliases: [victim.alias] }),
      },
    ],
  },
  "customers.update": {
    attempts: [
      { input: (victim) => ({ customerId: victim.customerIds[0], taxId: "hijack" }), expect: "notFound" },
      { input: (victim) => ({ customerId: victim.externalId, taxId: "hijack" }), expect: "notFound" },
    ],
  },
  "customers.list": {
    attempts: [
      { input: () => ({ limit: 1000 }), ...ownList("customers", (owner) => owner.customerIds) },
      { input: (victim) => ({ cursor: victim.cursors.customers }), expect: "ownOnly" },
    ],
  },
  "customers.getByName": { attempts: [{ input: (victim) => ({ name: victim.customerName }), expect: "notFound" }] },
  "customers.get": {
    attempts: [
      { input: (victim) => ({ customerId: victim.customerIds[0] }), expect: "notFound" },
      { input: (victim) => ({ customerId: victim.externalId }), expect: "notFound" },
    ],
  },
  "contracts.create": {
    attempts: [
      {
        input: (victim) => ({ customerId: victim.customerIds[0], name: "Hijack", startDate: "2024-01-01T00:00:00Z" }),
        expect: "notFound",
      },
      {
        input: (victim, intruder) => ({
          customerId: intruder.customerIds[0],
          name: "Hijack",
          startDate: "2024-01-01T00:00:00Z",
          planId: victim.planIds[0],
        }),
        expect: "notFound",
      },
      {
        input: (victim, intruder) => ({
          customerId: intruder.customerIds[0],
          name: "Hijack",
          startDate: "2024-01-01T00:00:00Z",
          planId: victim.planKey,
        }),
        expect: "notFound",
      },
    ],
  },
  "contracts.list": {
    attempts: [
      { input: () => ({ limit: 1000 }), ...ownList("contracts", (owner) => owner.contractIds) },
      { input: (victim) => ({ cursor: victim.cursors.contracts }), expect: "ownOnly" },
    ],
  },
  "contracts.get": { attempts: [{ input: (victim) => ({ contractId: victim.contractIds[0] }), expect: "notFound" }] },
  "contracts.update": {
    attempts: [
      { input: (victim) => ({ contractId: victim.contractIds[0], status: "Inactive" }), expect: "notFound" },
      { input: (victim) => ({ contractId: victim.contractIds[0], name: "hijack" }), expect: "notFound" },
    ],
  },
  "contracts.terminate": {
    attempts: [{ input: (victim) => ({ contractId: victim.contractIds[0], reason: "hijack" }), expect: "notFound" }],
  },
  "contracts.changeSeats": {
    attempts: [
      {
        input: (victim) => ({
          contractId: victim.contractIds[0],
          product: "Flat",
          quantity: 3,
          effectiveFrom: "2024-03-01T00:00:00Z",
        }),
        expect: "notFound",
      },
    ],
  },
  "contracts.seats": {
    attempts: [{ input: (victim) => ({ contractId: victim.contractIds[0] }), expect: "notFound" }],
  },
  "contracts.history": {
    attempts: [{ input: (victim) => ({ contractId: victim.contractIds[0] }), expect: "notFound" }],
  },
  "contracts.delete": {
    attempts: [{ input: (victim) => ({ contractId: victim.contractIds[0] }), expect: "notFound" }],
  },
  "measurements.create": {
    changesCaller: true,
    attempts: [
      {
        input: (victim) => ({
          customerId: victim.customerIds[0],
          meterId: victim.meterKey,
          usageDate: JANUARY_20,
          value: 0,
        }),
        expect: "notFound",
      },
      // The victim's meter key and day for the intruder's own customer: a measurement of the intruder's.
      {
        input: (victim, intruder) => ({
          customerId: intruder.customerIds[0],
          meterId: victim.meterKey,
          usageDate: JANUARY_20,
          value: 5,
        }),
        expect: "ownOnly",
        check: (answer, { intruder }) =>
          expect(answer.measurement).toMatchObject({ customerId: intruder.customerIds[0], value: 5 }),
      },
    ],
  },
  "meters.create": {
    changesCaller: true,
    attempts: [
      {
        input: (victim) => ({ key: victim.meterKey, eventName: "api_call", aggregation: "COUNT" }),
        expect: "ownOnly",
        check: (answer, { victim }) => expect(answer.meter.key).toBe(victim.meterKey),
      },
    ],
  },
  "meters.list": {
    attempts: [
      { input: () => ({ limit: 1000 }), ...ownList("meters", (owner) => owner.meterIds) },
      { input: (victim) => ({ cursor: victim.cursors.meters }), expect: "ownOnly" },
    ],
  },
  "meters.get": {
    attempts: [
      { input: (victim) => ({ meterId: victim.meterIds[0] }), expect: "notFound" },
      { input: (victim) => ({ meterId: victim.meterKey }), expect: "notFound" },
    ],
  },
  "meters.update": {
    attempts: [
      { input: (victim) => ({ meterId: victim.meterIds[0], displayName: "Hijacked" }), expect: "notFound" },
      { input: (victim) => ({ meterId: victim.meterKey, displayName: "Hijacked" }), expect: "notFound" },
    ],
  },
  "taxRates.create": {
    changesCaller: true,
    attempts: [
      {
        input: (victim) => ({ code: victim.taxRateCode, name: "Mine", rate: 20 }),
        expect: "ownOnly",
        check: (answer, { victim }) => expect(answer.taxRate.code).toBe(victim.taxRateCode),
      },
    ],
  },
  "taxRates.list": {
    attempts: [
      { input: () => ({ limit: 1000 }), ...ownList("taxRates", (owner) => owner.taxRateIds) },
      { input: (victim) => ({ cursor: victim.cursors.taxRates }), expect: "ownOnly" },
    ],
  },
  "taxRates.get": {
    attempts: [
      { input: (victim) => ({ taxRateId: victim.taxRateIds[0] }), expect: "notFound" },
      { input: (victim) => ({ taxRateId: victim.taxRateCode }), expect: "notFound" },
    ],
  },
  "taxRates.update": {
    attempts: [
      { input: (victim) => ({ taxRateId: victim.taxRateIds[0], name: "Hijacked" }), expect: "notFound" },
      { input: (victim) => ({ taxRateId: victim.taxRateCode, name: "Hijacked" }), expect: "notFound" },
    ],
  },
  "taxRates.archive": {
    attempts: [
      { input: (victim) => ({ taxRateId: victim.taxRateIds[0] }), expect: "notFound" },
      { input: (victim) => ({ taxRateId: victim.taxRateCode }), expect: "notFound" },
    ],
  },
  "plans.create": {
    changesCaller: true,
    attempts: [
      {
        input: (victim) => ({ key: victim.planKey, name: "Mine", currency: "USD", products: [] }),
        expect: "ownOnly",
        check: (answer, { victim }) => expect(answer.plan.key).toBe(victim.planKey),
      },
    ],
  },
  "plans.list": { attempts: [{ input: () => ({ limit: 1000 }), ...ownList("plans", (owner) => owner.planIds) }] },
  ...Object.fromEntries(
    (
      [
        ["plans.get", {}],
        ["plans.getVersion", { version: 1 }],
        ["plans.addVersion", { products: [] }],
        ["plans.archive", {}],
        ["plans.contracts", {}],
        ["plans.migrate", { fromVersions: [1], toVersion: 2, effective: "IMMEDIATELY" }],
        ["plans.simulate", { from: "2024-01-01T00:00:00Z", to: "2024-02-01T00:00:00Z", products: [] }],
      ] as const
    ).map(([procedure, rest]) => [
      procedure,
      {
        attempts: [
          { input: (victim: Tenant) => ({ planId: victim.planIds[0], ...rest }), expect: "notFound" as const },
          { input: (victim: Tenant) => ({ planId: victim.planKey, ...rest }), expect: "notFound" as const },
        ],
      },
    ]),
  ),
  "plans.migration": {
    attempts: [
      {
        input: (victim) => ({ planId: victim.planIds[0], migrationId: victim.migrationIds[0] }),
        expect: "notFound",
      },
      {
        input: (victim, intruder) => ({ planId: intruder.planIds[0], migrationId: victim.migrationIds[0] }),
        expect: "notFound",
      },
    ],
  },
  "coupons.create": {
    changesCaller: true,
    attempts: [
      {
        input: (victim) => ({ code: victim.couponCode, discount: { type: "PERCENT", value: 50 }, duration: "FOREVER" }),
        expect: "ownOnly",
        check: (answer, { victim }) => expect(answer.coupon.code).toBe(victim.couponCode),
      },
    ],
  },
  "coupons.list": {
    attempts: [
      { input: () => ({ limit: 1000 }), ...ownList("coupons", (owner) => owner.couponIds) },
      { input: (victim) => ({ cursor: victim.cursors.coupons }), expect: "ownOnly" },
    ],
  },
  "coupons.archive": { attempts: [{ input: (victim) => ({ code: victim.couponCode }), expect: "notFound" }] },
  "coupons.redeem": {
    attempts: [
      { input: (victim) => ({ contractId: victim.contractIds[0], code: victim.couponCode }), expect: "notFound" },
      {
        input: (victim, intruder) => ({ contractId: intruder.contractIds[0], code: victim.couponCode }),
        expect: "notFound",
      },
    ],
  },
  "coupons.ofContract": {
    attempts: [{ input: (victim) => ({ contractId: victim.contractIds[0] }), expect: "notFound" }],
  },
  "alerts.create": {
    attempts: [
      {
        input: (victim) => ({
          customerId: victim.customerIds[0],
          meterKey: victim.meterKey,
          thresholds: [1],
          period: "DAY",
        }),
        expect: "notFound",
      },
      { input: (victim) => ({ meterKey: victim.meterKey, thresholds: [1], period: "DAY" }), expect: "notFound" },
    ],
  },
  "token.current": {
    attempts: [
      {
        input: () => ({}),
        expect: "ownOnly",
        check: (answer, { intruder }) => expect(answer.token).toMatchObject({ accountId: intruder.accountId }),
      },
    ],
  },
  "alerts.list": {
    attempts: [{ input: () => ({ limit: 1000 }), ...ownList("alerts", (owner) => owner.alertIds) }],
  },
  "alerts.get": {
    attempts: [{ input: (victim) => ({ alertId: victim.alertIds[0] }), expect: "notFound" }],
  },
  "alerts.delete": {
    attempts: [{ input: (victim) => ({ alertId: victim.alertIds[0] }), expect: "notFound" }],
  },
  "entitlements.list": {
    attempts: [
      { input: (victim) => ({ customerId: victim.customerIds[0] }), expect: "notFound" },
      { input: (victim) => ({ customerId: victim.externalId }), expect: "notFound" },
    ],
  },
  "entitlements.get": {
    attempts: [
      { input: (victim) => ({ customerId: victim.customerIds[0], meterKey: victim.meterKey }), expect: "notFound" },
      { input: (victim) => ({ customerId: victim.externalId, meterKey: victim.meterKey }), expect: "notFound" },
    ],
  },
  "reservations.create": {
    attempts: [
      {
        input: (victim) => ({ customerId: victim.customerIds[0], meterKey: victim.meterKey, ...RESERVATION }),
        expect: "notFound",
      },
      {
        input: (victim) => ({ customerId: victim.externalId, meterKey: victim.meterKey, ...RESERVATION }),
        expect: "notFound",
      },
    ],
  },
  "reservations.settle": {
    attempts: [{ input: (victim) => ({ id: victim.reservationIds[0], amount: 0 }), expect: "notFound" }],
  },
  "reservations.get": { attempts: [{ input: (victim) => ({ id: victim.reservationIds[0] }), expect: "notFound" }] },
  "usage.get": {
    attempts: [
      { input: (victim) => ({ customerId: victim.customerIds[0], ...januaryUsage(victim) }), expect: "notFound" },
      { input: (victim) => ({ customerId: victim.externalId, ...januaryUsage(victim) }), expect: "notFound" },
    ],
  },
  "credits.grant": {
    attempts: [
      { input: (victim) => ({ customerId: victim.customerIds[0], amount: 1, type: "Grant" }), expect: "notFound" },
    ],
  },
  "credits.list": {
    attempts: [
      { input: (victim) => ({ customerId: victim.customerIds[0] }), expect: "notFound" },
      // A cursor naming an entry of the victim's ledger is no position in the intruder's.
      {
        input: (victim, intruder) => ({ customerId: intruder.customerIds[0], cursor: victim.entryIds[0] }),
        expect: "notFound",
      },
    ],
  },
  "credits.balance": {
    attempts: [{ input: (victim) => ({ customerId: victim.customerIds[0] }), expect: "notFound" }],
  },
  "credits.void": { attempts: [{ input: (victim) => ({ entryId: victim.entryIds[0] }), expect: "notFound" }] },
  "credits.cancelRecurrence": {
    attempts: [{ input: (victim) => ({ entryId: victim.entryIds[0] }), expect: "notFound" }],
  },
  "webhookEndpoints.create": {
    changesCaller: true,
    attempts: [
      {
        input: () => ({ url: "https://hooks.example.com/intruder" }),
        expect: "ownOnly",
        check: (answer) => expect(answer.endpoint.url).toBe("https://hooks.example.com/intruder"),
      },
    ],
  },
  "webhookEndpoints.list": {
    attempts: [{ input: () => ({ limit: 1000 }), ...ownList("endpoints", (owner) => owner.endpointIds) }],
  },
  "webhookEndpoints.get": {
    attempts: [{ input: (victim) => ({ endpointId: victim.endpointIds[0] }), expect: "notFound" }],
  },
  "webhookEndpoints.update": {
    attempts: [
      { input: (victim) => ({ endpointId: victim.endpointIds[0], description: "hijack" }), expect: "notFound" },
    ],
  },
  "webhookEndpoints.delete": {
    attempts: [{ input: (victim) => ({ endpointId: victim.endpointIds[0] }), expect: "notFound" }],
  },
  "webhookEndpoints.rotateSecret": {
    attempts: [{ input: (victim) => ({ endpointId: victim.endpointIds[0] }), expect: "notFound" }],
  },
  "webhookEndpoints.deliveries": {
    attempts: [{ input: (victim) => ({ endpointId: victim.endpointIds[0] }), expect: "notFound" }],
  },
  "webhookEndpoints.resend": {
    attempts: [{ input: (victim) => ({ deliveryId: victim.deliveryIds[0] }), expect: "notFound" }],
  },
  "events.ingest": {
    changesCaller: true,
    attempts: [
      {
        input: (victim) => ({
          events: victim.eventRefs.map((ref) => ({
            ref,
            name: "api_call",
            timestamp: "2024-01-10T00:00:00Z",
            customerAlias: victim.alias,
          })),
        }),
        expect: "ownOnly",
        // The victim's refs are no duplicates in another account.
        check: (answer, { victim }) => expect(answer).toEqual({ stored: victim.eventRefs.length, duplicates: [] }),
      },
    ],
  },
  "events.query": {
    attempts: [
      { input: () => ({ ...EVENTS_WINDOW, limit: 1000 }), ...ownList("events", (owner) => owner.eventIds) },
      { input: (victim) => ({ ...EVENTS_WINDOW, cursor: victim.eventIds[0] }), expect: "notFound" },
    ],
  },
  "events.explain": { attempts: [{ input: (victim) => ({ eventId: victim.eventIds[0] }), expect: "notFound" }] },
  // A backfill names the caller's own customer and meter: the victim's customer is a 400 as a customer of nobody.
  "backfills.create": {
    attempts: [
      {
        input: (victim, intruder) => ({
          customerId: victim.customerIds[0],
          meterKey: intruder.meterKey,
          from: "2024-01-01T00:00:00Z",
          to: "2024-02-01T00:00:00Z",
          mode: "REPLACE",
          events: [{ name: "x", timestamp: "2024-01-02T00:00:00Z", customerAlias: victim.alias, ref: "intruder" }],
        }),
        expect: "asForNothing",
      },
    ],
  },
  "backfills.get": { attempts: [{ input: (victim) => ({ backfillId: victim.contractIds[0] }), expect: "notFound" }] },
  "backfills.list": { attempts: [{ input: (victim) => ({ cursor: victim.eventIds[0] }), expect: "asForNothing" }] },
  "events.void": {
    attempts: [{ input: (victim) => ({ eventId: victim.eventIds[0], reason: "not mine" }), expect: "notFound" }],
  },
  "invoices.preview": {
    attempts: [
      { input: (victim) => ({ contractId: victim.contractIds[0], at: "2024-03-15T00:00:00Z" }), expect: "notFound" },
    ],
  },
  "invoices.simulate": {
    attempts: [
      {
        input: (victim) => ({ customerId: victim.customerIds[0], ...JANUARY_SIMULATION }),
        expect: "notFound",
      },
      { input: (victim) => ({ customerId: victim.externalId, ...JANUARY_SIMULATION }), expect: "notFound" },
      {
        input: (victim, intruder) => ({
          customerId: intruder.customerIds[0],
          contractId: victim.contractIds[0],
          ...JANUARY_SIMULATION,
        }),
        expect: "notFound",
      },
    ],
  },
  "invoices.list": {
    attempts: [
      { input: () => ({ limit: 1000 }), ...ownList("invoices", (owner) => owner.invoiceIds) },
      { input: (victim) => ({ customerId: victim.customerIds[0] }), expect: "asForNothing" },
      { input: (victim) => ({ contractId: victim.contractIds[0] }), expect: "asForNothing" },
      { input: (victim) => ({ cursor: victim.cursors.invoices }), expect: "ownOnly" },
    ],
  },
  "invoices.get": { attempts: [{ input: (victim) => ({ invoiceId: victim.invoiceIds[0] }), expect: "notFound" }] },
  "invoicePayments.pay": {
    attempts: [{ input: (victim) => ({ invoiceId: victim.invoiceIds[0], amount: 1 }), expect: "notFound" }],
  },
  "invoicePayments.payments": {
    attempts: [{ input: (victim) => ({ invoiceId: victim.invoiceIds[0] }), expect: "notFound" }],
  },
  "invoicePayments.adjustments": {
    attempts: [{ input: (victim) => ({ invoiceId: victim.invoiceIds[0] }), expect: "notFound" }],
  },
  "invoicePayments.void": {
    attempts: [{ input: (victim) => ({ invoiceId: victim.invoiceIds[0] }), expect: "notFound" }],
  },
  "creditNotes.create": {
    attempts: [
      {
        input: (victim) => ({ invoiceId: victim.invoiceIds[0], amount: 1, reason: "OTHER", refund: "OFFSET" }),
        expect: "notFound",
      },
    ],
  },
  "creditNotes.list": {
    attempts: [
      { input: () => ({ limit: 1000 }), ...ownList("creditNotes", (owner) => owner.creditNoteIds) },
      { input: (victim) => ({ invoiceId: victim.invoiceIds[0] }), expect: "asForNothing" },
      { input: (victim) => ({ customerId: victim.customerIds[0] }), expect: "asForNothing" },
    ],
  },
  "creditNotes.get": {
    attempts: [{ input: (victim) => ({ creditNoteId: victim.creditNoteIds[0] }), expect: "notFound" }],
  },
  "invoices.finalize": {
    attempts: [{ input: (victim) => ({ invoiceId: victim.invoiceIds[0] }), expect: "notFound" }],
  },
  "billing.run": {
    changesCaller: true,
    attempts: [
      {
        // The victim's contracts have cycles to bill up to June as well: the run bills the intruder's two alone.
        input: () => ({ at: "2024-06-01T00:00:00Z" }),
        expect: "ownOnly",
        check: async (answer, { intruder }) => {
          // One call stops after its time budget (3 s), which a loaded machine may reach: the next calls go on.
          let run = answer.run;
          let created = run.invoicesCreated;
          expect(run.failures).toEqual([]);
          while (run.hasMore) {
            const body = { at: "2024-06-01T00:00:00Z" };
            run = (await server.rest("POST", "/billing-runs", { token: intruder.token, body })).body.run;
            created += run.invoicesCreated;
            expect(run.failures).toEqual([]);
          }
          // March, April and May of the intruder's two contracts: 2 × 3 = 6.
          expect(created).toBe(6);
        },
      },
    ],
  },
  // A clock is its account's alone: an intruder reaches none, its own (live: none) or the victim's, whatever it sends.
  "auditLog.list": {
    attempts: [
      // The intruder's own entries (its account, customers, …) and none about the victim's resources.
      { input: () => ({ limit: 1000 }), expect: "ownOnly", check: (answer) => expect(answer.entries).not.toEqual([]) },
      {
        input: (victim) => ({ resourceId: victim.customerIds[0], limit: 1000 }),
        expect: "ownOnly",
        check: (answer) => expect(answer.entries).toEqual([]),
      },
    ],
  },
  // Reports sum the caller's own ledgers: the intruder owes nothing (credits paid its invoices); no victim id shows.
  "reports.receivables": {
    attempts: [
      {
        input: () => ({ currency: "USD" }),
        expect: "ownOnly",
        check: (answer) => expect(answer.total.total).toBe(0),
      },
    ],
  },
  "reports.revenue": {
    attempts: [
      {
        input: () => ({ from: "2024-01-01T00:00:00Z", to: "2024-04-01T00:00:00Z", currency: "USD" }),
        expect: "ownOnly",
        // The intruder's own January and February (10 + 20 a month, credits used: a discount), none of the victim's.
        check: (answer) => expect(answer.periods).toHaveLength(3),
      },
      {
        input: (victim) => ({
          from: "2024-01-01T00:00:00Z",
          to: "2024-04-01T00:00:00Z",
          currency: "USD",
          customerId: victim.customerIds[0],
        }),
        expect: "notFound",
      },
    ],
  },
  "reports.mrr": {
    attempts: [
      {
        input: () => ({ from: "2024-01-01T00:00:00Z", to: "2024-04-01T00:00:00Z", currency: "USD" }),
        expect: "ownOnly",
        // Only the intruder's own contracts move its MRR: every contract listed is one of its own.
        check: (answer, { intruder }) => {
          const listed = answer.months.flatMap((month: { movements: Record<string, { contracts: any[] }> }) =>
            Object.values(month.movements).flatMap((movement) => movement.contracts.map((move) => move.contractId)),
          );
          expect(listed.length).toBeGreaterThan(0);
          for (const contractId of listed) expect(intruder.contractIds).toContain(contractId);
        },
      },
    ],
  },
  // An export is the caller's own: it reads only the caller's ledgers; the victim's ids name no export of the intruder.
  "exports.create": {
    attempts: [
      {
        input: () => ({ kind: "invoices", from: "2024-01-01T00:00:00Z", to: "2024-04-01T00:00:00Z", format: "csv" }),
        expect: "ownOnly",
        check: (answer) => expect(answer.export).toMatchObject({ status: "PENDING", rows: 0 }),
      },
    ],
  },
  "exports.get": { attempts: [{ input: (victim) => ({ exportId: victim.contractIds[0] }), expect: "notFound" }] },
  "testClock.get": { attempts: [{ input: () => ({}), expect: "notFound" }] },
  // Collection: a provider connection is its account's alone (the intruder, never connected, finds none).
  "collection.getStripe": { attempts: [{ input: () => ({}), expect: "notFound" }] },
  "collection.deleteStripe": { attempts: [{ input: () => ({}), expect: "notFound" }] },
  "collection.putStripe": {
    changesCaller: true,
    attempts: [
      {
        input: () => ({ secretKey: "sk_test_intruder_000", webhookSecret: "whsec_intruder_0000" }),
        expect: "ownOnly",
      },
    ],
  },
  "collection.syncCustomer": {
    attempts: [{ input: (victim) => ({ customerId: victim.customerIds[0] }), expect: "notFound" }],
  },
  "collection.createPortalSession": {
    attempts: [{ input: (victim) => ({ customerId: victim.customerIds[0] }), expect: "notFound" }],
  },
  "collection.revokePortalSessions": {
    attempts: [{ input: (victim) => ({ customerId: victim.customerIds[0] }), expect: "notFound" }],
  },
  "collection.collect": {
    attempts: [{ input: (victim) => ({ invoiceId: victim.invoiceIds[0] }), expect: "notFound" }],
  },
  "testClock.advance": {
    attempts: [{ input: () => ({ to: "2024-06-01T00:00:00Z" }), expect: "notFound" }],
  },
};

/** Procedures not tried, and why. */
const EXEMPT: Record<string, string> = Object.fromEntries(
  [
    "admin.createAccount",
    "admin.getAccount",
    "admin.updateAccount",
    "admin.createToken",
    "admin.listTokens",
    "admin.rotateToken",
    "admin.revokeToken",
  ].map((path) => [
    path,
    "the operator's: the admin token acts on every account by design; account tokens are refused",
  ]),
);

let victim: Tenant;
/**
 * The intruder of every procedure whose attempts change nothing of the caller's (reads, refusals): each attempt is
 * checked to have stored nothing, so one intruder serves them all. A procedure that changes its caller's data gets
 * a new intruder per transport.
 */
let intruderOfReads: Tenant;
beforeAll(async () => {
  victim = await newTenant(server, "victim");
  intruderOfReads = await newTenant(server, "intruder");
});

describe("tenant isolation on every procedure of the router", () => {
  it("tries every procedure, or names it exempt with the reason", () => {
    expect(Object.keys(procedures).sort()).toEqual([...Object.keys(TRIED), ...Object.keys(EXEMPT)].sort());
    for (const path of Object.keys(TRIED)) {
      expect(procedures[path]!._def.meta?.openapi, `${path} has a REST route`).toBeDefined();
    }
  });

  it.each(Object.keys(TRIED))(
    "%s: another account's ids reach nothing; the victim's data stays",
    async (path) => {
      const { attempts, changesCaller } = TRIED[path]!;
      const victimBefore = await snapshotData(server.service.db, victim.accountId);
      for (const transport of ["REST", "tRPC"] as const) {
        const intruder = changesCaller ? await newTenant(server, randomBytes(4).toString("hex")) : intruderOfReads;
        const call = (input: Record<string, unknown>) => callProcedure(server, transport, intruder.token, path, input);
        for (const [index, attempt] of attempts.entries()) {
          const what = `${transport} ${path}, attempt ${index + 1}`;
          const writes = writesTo(server.service.db.databaseName);
          const answer = await call(attempt.input(victim, intruder));
          for (const id of idsOf(victim)) expect(JSON.stringify(answer.body), `${what} names ${id}`).not.toContain(id);
          if (attempt.expect === "ownOnly") {
            expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
            await attempt.check?.(answer.body, { victim, intruder });
            // The write log sees what an accepted change stores (so its silence below means something).
            if (changesCaller) expect(writes.changedSince(), what).not.toEqual([]);
            continue;
          }
          expect(answer, what).toEqual(await call(attempt.input(tenantOfNothing(), intruder)));
          if (attempt.expect === "notFound")
            expect([answer.status, answer.body.code], what).toEqual([404, "NOT_FOUND"]);
          // Refused, or a read: no write of the service changed anything stored, the intruder's own data included.
          expect(writes.changedSince(), what).toEqual([]);
        }
      }
      expect(changedCollections(victimBefore, await snapshotData(server.service.db, victim.accountId))).toEqual([]);
    },
    // The billing run's check may need several calls (each up to its 3 s budget) on a loaded machine.
    60_000,
  );
});
