import { expect } from "vitest";
import type { Tenant } from "../tenants.js";
import { ownList, type TriedByRouter } from "./attempts.js";

/**
 * How test/tenant-isolation.catalog.test.ts tries the procedures of its routers, keyed by router. A new procedure's
 * attempts go into its router's table, wherever that is (test/tenant-isolation.coverage.test.ts fails until some
 * group tries it, and when two do); a new router gets a table in the group whose file is fastest.
 */
export const CATALOG: TriedByRouter = {
  plans: {
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
  },
  taxRates: {
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
  },
  webhookEndpoints: {
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
  },
};
