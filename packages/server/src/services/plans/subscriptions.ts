import { type ContractCreate, type ContractUpdate, product } from "@billing/shared";
import type { ContractInMicros, OverrideInMicros, TermsInMicros } from "../../domain/billing/contract.js";
import { movedCreditGrants, type PlanMove } from "../../domain/contracts/amendments.js";
import { badRequest, conflict, notFound } from "../../domain/errors.js";
import { resolvePlanTerms, unknownOverrides } from "../../domain/plans/overrides.js";
import { overrideInMicros, presentTerms } from "../../presenters/contracts.js";
import type { PlanRecord, PlanVersionRecord } from "../../repositories/plans.js";
import type { CallScope } from "../call-scope.js";
import { createContract } from "../contracts/creation.js";
import { updateContract } from "../contracts/update.js";
import { currentVersion, requirePlan, requireVersion } from "./catalog.js";

/**
 * Contracts that follow a plan (docs/decisions.md, "Plans"): each stores the terms its plan version and its overrides
 * resolve to, so billing reads it as any contract, and `plan` names what they follow.
 */

/** The resolved products must still be products (an override may not make one invalid): 400 naming `field`. */
function checkResolved(terms: TermsInMicros, field: string) {
  const { products = [], productGroups = [] } = presentTerms(terms);
  const all = [...products, ...productGroups.flatMap((group) => group.products)];
  for (const resolved of all) {
    const checked = product.safeParse(resolved);
    if (!checked.success) {
      const [issue] = checked.error.issues;
      const message = `${resolved.displayName}: ${issue?.path.join(".")} ${issue?.message}`;
      throw badRequest(`The overrides make product "${resolved.displayName}" invalid`, [{ path: field, message }]);
    }
  }
}

/**
 * The move of a contract to `version` of its plan: the version's terms with the contract's overrides. An override
 * naming a product the version lacks is 409 naming it, unless `dropOverrides` (then it is dropped). The contract
 * takes the version's credit grants when it had its current version's (`fromVersion`), else keeps its own.
 */
export function planMoveTo(
  plan: PlanRecord,
  version: PlanVersionRecord,
  contract: ContractInMicros,
  dropOverrides = false,
  fromVersion?: PlanVersionRecord,
): PlanMove {
  const overrides = contract.planOverrides ?? [];
  const missing = unknownOverrides(version.terms, overrides);
  if (missing.length > 0 && !dropOverrides) {
    const names = missing.map(({ product: name }) => `"${name}"`).join(", ");
    throw conflict(`Version ${version.version} of plan ${plan.key} has no product ${names} the contract overrides`, [
      { path: "dropOverrides", message: `pass true to drop the overrides of ${names}` },
    ]);
  }
  const kept = overrides.filter((_, index) => !missing.some((gone) => gone.index === index));
  const terms = resolvePlanTerms(version.terms, kept);
  checkResolved(terms, "planVersion");
  const creditGrants =
    fromVersion && movedCreditGrants(contract.creditGrants, fromVersion.creditGrants, version.creditGrants);
  return {
    terms,
    ...(creditGrants && { creditGrants }),
    plan: { id: plan.id, key: plan.key, version: version.version },
    planOverrides: kept.length > 0 ? kept : null,
    ...(contract.plan && { from: { planId: contract.plan.id, version: contract.plan.version } }),
  };
}

/**
 * A contract on a plan's version (default: the current one) with the caller's overrides; the other fields as for any
 * contract. 409 on an archived plan; 400 naming an override's unknown product, or a currency not the plan's.
 */
export async function createPlanContract(call: CallScope, input: ContractCreate & { planId: string }) {
  const { planId, planVersion, overrides: given = [], ...fields } = input;
  const plan = await requirePlan(call, planId);
  if (plan.status === "ARCHIVED") {
    throw conflict(`Plan ${plan.key} is archived: no new contract may take it`, [
      { path: "planId", message: "archived" },
    ]);
  }
  if (fields.currency !== undefined && fields.currency !== plan.currency) {
    throw badRequest(`Plan ${plan.key} is priced in ${plan.currency}`, [
      { path: "currency", message: `must be ${plan.currency} (the plan's) or left out` },
    ]);
  }
  const version =
    planVersion === undefined
      ? await currentVersion(call, plan)
      : await requireVersion(call, plan, planVersion, "planVersion");
  const overrides: OverrideInMicros[] = given.map(overrideInMicros);
  const unknown = unknownOverrides(version.terms, overrides);
  if (unknown.length > 0) {
    throw badRequest(`Version ${version.version} of plan ${plan.key} has no product "${unknown[0]?.product}"`, [
      ...unknown.map(({ index, product: name }) => ({
        path: `overrides.${index}.product`,
        message: `no product "${name}" in the plan's version ${version.version}`,
      })),
    ]);
  }
  const terms = resolvePlanTerms(version.terms, overrides);
  checkResolved(terms, "overrides");
  // The contract's own credit grants, else the version's: scheduled by createContract as any contract's.
  const creditGrants = fields.creditGrants ?? version.creditGrants;
  return createContract(
    call,
    { ...fields, ...presentTerms(terms), currency: plan.currency, ...(creditGrants && { creditGrants }) },
    {
      plan: { id: plan.id, key: plan.key, version: version.version },
      ...(overrides.length > 0 && { planOverrides: overrides }),
    },
  );
}

/**
 * PATCH of a contract: `planVersion` moves a plan's contract to that version from `effectiveFrom` (409 on a custom
 * contract); otherwise updateContract (new `products` make a plan's contract custom).
 */
export async function changeContract(call: CallScope, contractId: string, given: ContractUpdate, by: string) {
  const { planVersion, dropOverrides, ...change } = given;
  if (planVersion === undefined) {
    if (dropOverrides !== undefined) {
      throw badRequest("dropOverrides goes with planVersion", [
        { path: "dropOverrides", message: "only with planVersion" },
      ]);
    }
    return updateContract(call, contractId, change, by);
  }
  if (change.products !== undefined || change.productGroups !== undefined) {
    throw badRequest("planVersion and products are separate changes", [
      { path: "products", message: "not with planVersion" },
    ]);
  }
  const contract = await call.repositories.contracts.get(call.accountId, contractId);
  if (!contract) throw notFound("Contract");
  if (!contract.plan) {
    throw conflict("The contract follows no plan: it has its own terms", [
      { path: "planVersion", message: "only on a plan's contract" },
    ]);
  }
  const plan = await requirePlan(call, contract.plan.id);
  const version = await requireVersion(call, plan, planVersion, "planVersion");
  const from = await call.repositories.plans.version(call.accountId, plan.id, contract.plan.version);
  return updateContract(call, contractId, change, by, planMoveTo(plan, version, contract, dropOverrides, from));
}
