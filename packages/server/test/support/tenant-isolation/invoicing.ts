import { expect } from "vitest";
import { ownList, type TriedByRouter } from "./attempts.js";

/**
 * How test/tenant-isolation.invoicing.test.ts tries the procedures of its routers, keyed by router. A new procedure's
 * attempts go into its router's table, wherever that is (test/tenant-isolation.coverage.test.ts fails until some
 * group tries it, and when two do); a new router gets a table in the group whose file is fastest.
 */
/** A simulation of January 2024 (the tenants' first cycle) at a flat price. */
const JANUARY_SIMULATION = {
  startDate: "2024-01-01T00:00:00Z",
  endDate: "2024-02-01T00:00:00Z",
  products: [{ displayName: "Flat", pricing: { type: "FLAT", price: 5 } }],
};

export const INVOICING: TriedByRouter = {
  invoices: {
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
        {
          input: (victim) => ({ customerId: victim.customerIds[0], issuedFrom: "2024-01-01T00:00:00Z" }),
          expect: "asForNothing",
        },
      ],
    },
    "invoices.get": { attempts: [{ input: (victim) => ({ invoiceId: victim.invoiceIds[0] }), expect: "notFound" }] },
    "invoices.finalize": {
      attempts: [{ input: (victim) => ({ invoiceId: victim.invoiceIds[0] }), expect: "notFound" }],
    },
  },
  invoicePayments: {
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
  },
  creditNotes: {
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
  },
  billing: {
    "billing.run": {
      changesCaller: true,
      attempts: [
        {
          // The victim's contracts have cycles to bill up to June as well: the run bills the intruder's two alone.
          input: () => ({ at: "2024-06-01T00:00:00Z" }),
          expect: "ownOnly",
          check: async (answer, { intruder, server }) => {
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
  },
  testClock: {
    // A clock is its account's alone: an intruder reaches none, its own (live: none) or the victim's, whatever it
    // sends.
    "testClock.get": { attempts: [{ input: () => ({}), expect: "notFound" }] },
    "testClock.advance": {
      attempts: [{ input: () => ({ to: "2024-06-01T00:00:00Z" }), expect: "notFound" }],
    },
  },
  reports: {
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
    "reports.collections": {
      attempts: [
        {
          input: () => ({ from: "2024-01-01T00:00:00Z", to: "2024-12-31T00:00:00Z", currency: "USD" }),
          expect: "ownOnly",
          // Credits paid the intruder's invoices: no money collected, whatever the victim was paid.
          check: (answer) => expect(answer).toMatchObject({ collected: 0, refunded: 0, net: 0 }),
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
  },
  exports: {
    // An export is the caller's own: it reads only the caller's ledgers; the victim's ids name no export of the
    // intruder.
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
  },
  collection: {
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
  },
};
