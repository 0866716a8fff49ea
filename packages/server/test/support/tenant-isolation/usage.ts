import { expect } from "vitest";
import { EVENTS_WINDOW, type Tenant } from "../tenants.js";
import { ownList, type TriedByRouter } from "./attempts.js";

/**
 * How test/tenant-isolation.usage.test.ts tries the procedures of its routers, keyed by router. A new procedure's
 * attempts go into its router's table, wherever that is (test/tenant-isolation.coverage.test.ts fails until some
 * group tries it, and when two do); a new router gets a table in the group whose file is fastest.
 */
const JANUARY_20 = { year: 2024, month: 1, day: 20 };
const januaryUsage = (owner: Tenant) => ({ meterKey: owner.meterKey, startDate: "2024-01-01", endDate: "2024-02-01" });
/** A reservation's fields besides its customer and meter. */
const RESERVATION = { amount: 1, ttlSeconds: 60, ref: "intruding" };

export const USAGE: TriedByRouter = {
  measurements: {
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
  },
  meters: {
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
  },
  usage: {
    "usage.get": {
      attempts: [
        { input: (victim) => ({ customerId: victim.customerIds[0], ...januaryUsage(victim) }), expect: "notFound" },
        { input: (victim) => ({ customerId: victim.externalId, ...januaryUsage(victim) }), expect: "notFound" },
      ],
    },
  },
  events: {
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
        // Held by another account's backfill: a 400 as a backfill of nobody.
        {
          input: (victim) => ({
            backfillId: victim.contractIds[0],
            events: [{ ref: "intruder", name: "api_call", timestamp: "2024-01-10T00:00:00Z", customerAlias: "x" }],
          }),
          expect: "asForNothing",
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
    "events.void": {
      attempts: [{ input: (victim) => ({ eventId: victim.eventIds[0], reason: "not mine" }), expect: "notFound" }],
    },
  },
  // A backfill names the caller's own customer and meter: the victim's customer is a 400 as a customer of nobody.
  backfills: {
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
    "backfills.commit": {
      attempts: [{ input: (victim) => ({ backfillId: victim.contractIds[0] }), expect: "notFound" }],
    },
    "backfills.revert": {
      attempts: [{ input: (victim) => ({ backfillId: victim.contractIds[0] }), expect: "notFound" }],
    },
    "backfills.list": { attempts: [{ input: (victim) => ({ cursor: victim.eventIds[0] }), expect: "asForNothing" }] },
  },
  reservations: {
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
  },
  alerts: {
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
    "alerts.list": {
      attempts: [{ input: () => ({ limit: 1000 }), ...ownList("alerts", (owner) => owner.alertIds) }],
    },
    "alerts.get": {
      attempts: [{ input: (victim) => ({ alertId: victim.alertIds[0] }), expect: "notFound" }],
    },
    "alerts.delete": {
      attempts: [{ input: (victim) => ({ alertId: victim.alertIds[0] }), expect: "notFound" }],
    },
  },
  entitlements: {
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
  },
  credits: {
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
  },
};
