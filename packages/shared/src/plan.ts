import { z } from "zod";
import { pageInfo, pageQuery, requiredText, resourceRef, text, timestamp } from "./common.js";
import { contract, product, productGroup, refusePrepaidUsage, serviceDate } from "./contract.js";
import { contractCreditGrants } from "./credit-recurrence.js";
import { currencyCode } from "./currency.js";
import { money } from "./money.js";

/**
 * A price catalog (docs/decisions.md, "Plans"): a plan is versioned terms that contracts follow. A version's terms are
 * exactly a contract's (`products`, `productGroups`: the same schemas, so every field they gain a plan gains too).
 */

/** A plan's key: how callers name it besides its id; unique in the account. */
export const planKey = z
  .string()
  .regex(/^[a-z0-9_-]{1,64}$/, "1 to 64 of a-z, 0-9, _ and -")
  .meta({ description: "Unique in the account, e.g. `pro`." });

/** A plan has at most this many versions (each contract read of a plan counts its versions' subscribers). */
export const MAX_PLAN_VERSIONS = 100;

const planTerms = {
  products: z.array(product).max(100),
  productGroups: z.array(productGroup).max(100).optional(),
  creditGrants: contractCreditGrants.optional().meta({
    description:
      "Credits each contract of the version is granted per period of their recurrence, counted from the contract's " +
      "startDate (a contract created with its own `creditGrants` takes those instead).",
  }),
};

export const planCreate = z
  .strictObject({
    key: planKey,
    name: requiredText(),
    description: text().optional(),
    currency: currencyCode.meta({ description: "ISO 4217 code of every price of the plan and of its contracts." }),
    ...planTerms,
  })
  .superRefine(refusePrepaidUsage)
  .meta({ id: "PlanCreate" });
export type PlanCreate = z.infer<typeof planCreate>;

export const planVersionCreate = z
  .strictObject(planTerms)
  .superRefine(refusePrepaidUsage)
  .meta({ id: "PlanVersionCreate" });
export type PlanVersionCreate = z.infer<typeof planVersionCreate>;

export const planStatus = z.enum(["ACTIVE", "ARCHIVED"]).meta({ id: "PlanStatus" });
export type PlanStatus = z.infer<typeof planStatus>;

export const planVersionSummary = z
  .object({
    version: z.number().int().min(1),
    createdAt: timestamp,
    contracts: z.number().int().min(0).meta({ description: "Live contracts whose current terms follow it." }),
  })
  .meta({ id: "PlanVersionSummary" });

export const plan = z
  .object({
    id: z.string(),
    key: planKey,
    name: z.string(),
    description: z.string().optional(),
    currency: currencyCode,
    status: planStatus,
    version: z.number().int().min(1).meta({ description: "The current version: the one shown and taken by default." }),
    ...planTerms,
    versions: z.array(planVersionSummary).optional().meta({ description: "Every version, oldest first (GET one)." }),
    createdAt: timestamp,
    updatedAt: timestamp,
    archivedAt: timestamp.optional(),
  })
  .meta({ id: "Plan" });
export type Plan = z.infer<typeof plan>;

export const planVersion = z
  .object({
    planId: z.string(),
    key: planKey,
    version: z.number().int().min(1),
    currency: currencyCode,
    ...planTerms,
    createdAt: timestamp,
  })
  .meta({ id: "PlanVersion" });
export type PlanVersion = z.infer<typeof planVersion>;

export const planIdParam = resourceRef.meta({ description: "The plan's id or key." });
/** A version number in a path: REST sends it as a string. */
export const planVersionParam = z.coerce.number<number>().int().min(1).max(MAX_PLAN_VERSIONS);
export const planListQuery = z.object({ ...pageQuery, status: planStatus.optional() });
export const planList = z.object({ plans: z.array(plan), ...pageInfo });

export const planContractsQuery = z.object({
  ...pageQuery,
  planId: planIdParam,
  version: planVersionParam.optional().meta({ description: "Only this version's subscribers (default: all)." }),
});
export const planContractList = z.object({ contracts: z.array(contract), ...pageInfo });

export const migrationEffective = z
  .union([
    z.enum(["NEXT_CYCLE", "IMMEDIATELY"]),
    z.strictObject({ at: serviceDate.meta({ description: "The UTC day the version bills from." }) }),
  ])
  .meta({
    id: "MigrationEffective",
    description:
      "NEXT_CYCLE: from each contract's first cycle start on or after today; IMMEDIATELY: from today (the cycle " +
      "split and prorated); `{ at }`: from that UTC day. Today is the account's billing day (its test clock's).",
  });

export const planMigrationCreate = z
  .strictObject({
    fromVersions: z.union([
      z.array(planVersionParam).min(1).max(MAX_PLAN_VERSIONS),
      z.literal("ALL").meta({ description: "Every version but `toVersion`." }),
    ]),
    toVersion: planVersionParam,
    effective: migrationEffective,
    dropOverrides: z
      .boolean()
      .optional()
      .meta({ description: "Drop overrides of products `toVersion` lacks (else such a contract fails, named)." }),
  })
  .meta({ id: "PlanMigrationCreate" });
export type PlanMigrationCreate = z.infer<typeof planMigrationCreate>;

export const planMigration = z
  .object({
    id: z.string(),
    planId: z.string(),
    fromVersions: z.array(z.number().int()),
    toVersion: z.number().int(),
    effective: migrationEffective,
    at: timestamp.meta({ description: "The billing time the migration was asked at: what `effective` reads." }),
    status: z.enum(["RUNNING", "COMPLETED"]),
    total: z.number().int().min(0).meta({ description: "Subscribers of `fromVersions` when it started." }),
    done: z.number().int().min(0).meta({ description: "Contracts moved." }),
    failed: z
      .array(z.object({ contractId: z.string(), reason: z.string() }))
      .meta({ description: "Contracts left where they were, with the reason (the first 100)." }),
    failedTotal: z.number().int().min(0),
    createdAt: timestamp,
    updatedAt: timestamp,
    completedAt: timestamp.optional(),
  })
  .meta({ id: "PlanMigration" });
export type PlanMigration = z.infer<typeof planMigration>;

export const planSimulationRequest = z
  .strictObject({
    ...planTerms,
    from: serviceDate.meta({ description: "First moment of the period: cycles starting from then." }),
    to: serviceDate.meta({ description: "End of the period, excluded: not later than now." }),
    sample: z.number().int().min(1).max(1000).optional().meta({ description: "Price this many contracts only." }),
  })
  .meta({ id: "PlanSimulationRequest" });
export type PlanSimulationRequest = z.infer<typeof planSimulationRequest>;

export const planSimulation = z
  .object({
    from: timestamp,
    to: timestamp,
    contracts: z.array(z.object({ contractId: z.string(), customerId: z.string(), current: money, candidate: money })),
    current: money.meta({ description: "What the contracts' own terms bill over the period." }),
    candidate: money.meta({ description: "What the candidate terms (with each contract's overrides) bill." }),
    hasMore: z.boolean().meta({ description: "The call stopped at its limits before pricing every contract." }),
  })
  .meta({ id: "PlanSimulation" });
export type PlanSimulation = z.infer<typeof planSimulation>;
