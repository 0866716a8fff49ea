import {
  MAX_PLAN_VERSIONS,
  type Plan,
  type PlanCreate,
  type PlanVersion,
  type PlanVersionCreate,
} from "@billing/shared";
import { conflict, DomainError, notFound } from "../../domain/errors.js";
import { presentTerms, termsInMicros } from "../../presenters/contracts.js";
import type { PlanRecord, PlanVersionRecord } from "../../repositories/plans.js";
import type { CallScope } from "../call-scope.js";
import { contractTaxCodes, requireLiveTaxRates } from "../tax-rates.js";
import { publishChange } from "../webhook-events.js";

/** The plan as the API answers it: its fields and its current version's terms; `versions` on a read of one plan. */
export const presentPlan = (plan: PlanRecord, current: PlanVersionRecord, versions?: Plan["versions"]): Plan => ({
  ...plan,
  version: current.version,
  products: [],
  ...presentTerms(current.terms),
  ...(current.creditGrants && { creditGrants: current.creditGrants }),
  ...(versions && { versions }),
});

export const presentPlanVersion = (plan: PlanRecord, version: PlanVersionRecord): PlanVersion => ({
  planId: plan.id,
  key: plan.key,
  version: version.version,
  currency: plan.currency,
  products: [],
  ...presentTerms(version.terms),
  ...(version.creditGrants && { creditGrants: version.creditGrants }),
  createdAt: version.createdAt,
});

type Scope = Pick<CallScope, "repositories" | "accountId">;

/** The account's plan named by id or key (404 otherwise). */
export async function requirePlan({ repositories, accountId }: Scope, idOrKey: string): Promise<PlanRecord> {
  const plan = await repositories.plans.get(accountId, idOrKey);
  if (!plan) throw notFound("Plan");
  return plan;
}

/** The plan's version `n` (404 naming `field` when it has none: a version is named as an id is). */
export async function requireVersion({ repositories, accountId }: Scope, plan: PlanRecord, n: number, field: string) {
  const found = await repositories.plans.version(accountId, plan.id, n);
  if (!found) {
    const issues = [{ path: field, message: "no such version" }];
    throw new DomainError("NOT_FOUND", `Plan ${plan.key} has no version ${n}`, issues);
  }
  return found;
}

export async function currentVersion({ repositories, accountId }: Scope, plan: PlanRecord) {
  const found = await repositories.plans.latest(accountId, plan.id);
  if (!found) throw new Error(`plan ${plan.id} has no version`);
  return found;
}

/** A plan with every version and how many live contracts follow each. */
export async function readPlan(scope: Scope, idOrKey: string): Promise<Plan> {
  const plan = await requirePlan(scope, idOrKey);
  const versions = await scope.repositories.plans.versions(scope.accountId, plan.id);
  const counts = await scope.repositories.contracts.planCounts(scope.accountId, plan.id);
  const current = versions.at(-1);
  if (!current) throw new Error(`plan ${plan.id} has no version`);
  return presentPlan(
    plan,
    current,
    versions.map(({ version, createdAt }) => ({ version, createdAt, contracts: counts.get(version) ?? 0 })),
  );
}

/** The terms' tax codes must name live rates, as a contract's (400 naming the field). */
async function checkTerms(scope: Scope, terms: PlanVersionCreate) {
  await requireLiveTaxRates(scope.repositories, scope.accountId, contractTaxCodes(terms));
}

/** Stores a plan with its version 1 (409 on a taken key) and publishes `plan.created`. */
export async function createPlan(call: CallScope, { products, productGroups, creditGrants, ...fields }: PlanCreate) {
  await checkTerms(call, { products, productGroups });
  const terms = { ...termsInMicros({ products, productGroups }), ...(creditGrants && { creditGrants }) };
  const created = await call.repositories.plans.create(call.accountId, fields, terms);
  if (!created) {
    throw conflict(`A plan with key "${fields.key}" already exists`, [{ path: "key", message: "taken" }]);
  }
  const plan = presentPlan(created.plan, created.version, [
    { version: 1, createdAt: created.version.createdAt, contracts: 0 },
  ]);
  await publishChange(call.repositories, call.accountId, call.log, { type: "plan.created", data: plan });
  return plan;
}

/** Tries to store version n + 1 this many times against concurrent creations before answering 409. */
const VERSION_ATTEMPTS = 5;

/**
 * Stores the plan's next version (earlier ones never change) and publishes `plan.version_created`. Of concurrent
 * creations each gets its own number: the insert of `<plan>:<n>` decides.
 */
export async function addPlanVersion(call: CallScope, idOrKey: string, given: PlanVersionCreate) {
  const plan = await requirePlan(call, idOrKey);
  if (plan.status === "ARCHIVED") throw conflict(`Plan ${plan.key} is archived: it takes no new version`);
  await checkTerms(call, given);
  const terms = { ...termsInMicros(given), ...(given.creditGrants && { creditGrants: given.creditGrants }) };
  for (let attempt = 0; attempt < VERSION_ATTEMPTS; attempt += 1) {
    const latest = await currentVersion(call, plan);
    if (latest.version >= MAX_PLAN_VERSIONS) {
      throw conflict(`Plan ${plan.key} has ${MAX_PLAN_VERSIONS} versions, the most it may have`);
    }
    const added = await call.repositories.plans.addVersion(call.accountId, plan.id, latest.version + 1, terms);
    if (!added) continue;
    const updated = presentPlan({ ...plan, updatedAt: added.createdAt }, added);
    await publishChange(call.repositories, call.accountId, call.log, { type: "plan.version_created", data: updated });
    return updated;
  }
  throw conflict("The plan was given new versions concurrently: read it again and retry");
}

/** Archives the plan (no new contract may take it; its contracts keep billing) and publishes `plan.archived`. */
export async function archivePlan(call: CallScope, idOrKey: string) {
  const plan = await requirePlan(call, idOrKey);
  if (plan.status === "ARCHIVED") return presentPlan(plan, await currentVersion(call, plan));
  const archived = (await call.repositories.plans.archive(call.accountId, plan.id)) ?? plan;
  const shown = presentPlan(archived, await currentVersion(call, archived));
  await publishChange(call.repositories, call.accountId, call.log, { type: "plan.archived", data: shown });
  return shown;
}
