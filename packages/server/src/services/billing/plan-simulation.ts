import type { PlanSimulation, PlanSimulationRequest } from "@billing/shared";
import { notFound } from "../../domain/errors.js";
import { resolvePlanTerms } from "../../domain/plans/overrides.js";
import { presentTerms, termsInMicros } from "../../presenters/contracts.js";
import { sumAmounts } from "../../presenters/money.js";
import type { CallScope } from "../call-scope.js";
import { simulateInvoices } from "./simulate.js";

/**
 * Bounds of a plan simulation beside each contract's own (MAX_SIMULATED_CYCLES, MAX_SIMULATION_UNITS): contracts
 * priced per call, and the call's time; past either it answers what it priced with `hasMore`.
 */
export const PLAN_SIMULATION_LIMITS = { contractsPerCall: 50, timeBudgetMs: 10_000 };

/**
 * What candidate terms would have billed the plan's contracts (the first `sample`, else all, oldest first) over
 * [from, to) from their stored usage, beside what their own terms bill over it: each contract simulated twice as
 * POST /invoices/simulate does (its cycles, proration and pauses), the candidate with the contract's overrides.
 */
export async function simulatePlan(
  call: CallScope,
  idOrKey: string,
  { products, productGroups, from, to, sample }: PlanSimulationRequest,
  limits = PLAN_SIMULATION_LIMITS,
): Promise<PlanSimulation> {
  const plan = await call.repositories.plans.get(call.accountId, idOrKey);
  if (!plan) throw notFound("Plan");
  const wanted = Math.min(sample ?? limits.contractsPerCall, limits.contractsPerCall);
  const page = await call.repositories.contracts.ofPlan(call.accountId, plan.id, { limit: wanted });
  const candidate = termsInMicros({ products, ...(productGroups && { productGroups }) });
  const started = Date.now();
  const rows: PlanSimulation["contracts"] = [];
  let stopped = false;
  for (const contract of page.items) {
    if (Date.now() - started > limits.timeBudgetMs) {
      stopped = true;
      break;
    }
    const base = { customerId: contract.customerId, contractId: contract.id, startDate: from, endDate: to };
    const own = await simulateInvoices(call.repositories, call.accountId, base);
    const terms = presentTerms(resolvePlanTerms(candidate, contract.planOverrides ?? []));
    const priced = await simulateInvoices(call.repositories, call.accountId, {
      ...base,
      products: terms.products ?? [],
      productGroups: terms.productGroups ?? [],
    });
    rows.push({
      contractId: contract.id,
      customerId: contract.customerId,
      current: own.simulatedTotal,
      candidate: priced.simulatedTotal,
    });
  }
  const sum = (field: "current" | "candidate") => sumAmounts(rows.map((row) => row[field]));
  const more = sample === undefined ? page.hasMore : sample > wanted && page.hasMore;
  return { from, to, contracts: rows, current: sum("current"), candidate: sum("candidate"), hasMore: stopped || more };
}
