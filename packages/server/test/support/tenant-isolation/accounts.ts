import { expect } from "vitest";
import { ownList, type TriedByRouter } from "./attempts.js";

/**
 * How test/tenant-isolation.accounts.test.ts tries the procedures of its routers, keyed by router. A new procedure's
 * attempts go into its router's table, wherever that is (test/tenant-isolation.coverage.test.ts fails until some
 * group tries it, and when two do); a new router gets a table in the group whose file is fastest.
 */
export const ACCOUNTS: TriedByRouter = {
  customers: {
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
  },
  contracts: {
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
  },
  coupons: {
    "coupons.create": {
      changesCaller: true,
      attempts: [
        {
          input: (victim) => ({
            code: victim.couponCode,
            discount: { type: "PERCENT", value: 50 },
            duration: "FOREVER",
          }),
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
  },
  token: {
    "token.current": {
      attempts: [
        {
          input: () => ({}),
          expect: "ownOnly",
          check: (answer, { intruder }) => expect(answer.token).toMatchObject({ accountId: intruder.accountId }),
        },
      ],
    },
  },
  auditLog: {
    "auditLog.list": {
      attempts: [
        // The intruder's own entries (its account, customers, …) and none about the victim's resources.
        {
          input: () => ({ limit: 1000 }),
          expect: "ownOnly",
          check: (answer) => expect(answer.entries).not.toEqual([]),
        },
        {
          input: (victim) => ({ resourceId: victim.customerIds[0], limit: 1000 }),
          expect: "ownOnly",
          check: (answer) => expect(answer.entries).toEqual([]),
        },
      ],
    },
  },
};
