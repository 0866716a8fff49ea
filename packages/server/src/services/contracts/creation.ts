import type { ContractCreate } from "@billing/shared";
import type { ContractCreateInMicros } from "../../domain/billing/contract.js";
import { contractInMicros, presentContract } from "../../presenters/contracts.js";
import type { CallScope } from "../call-scope.js";
import { asReadNow } from "../contract-reads.js";
import { scheduleContractCredits } from "../credit-recurrences.js";
import { checkUsagePricedOnce } from "../priced-usage.js";
import { contractTaxCodes, requireLiveTaxRates } from "../tax-rates.js";
import { publishChange } from "../webhook-events.js";
import { scheduleBilling } from "./billing-schedule.js";
import { recordMrrCurve } from "./mrr.js";

/**
 * The changes of a contract a caller makes, each written and published (its webhook) by the function that makes it:
 * creation here; deletion.ts, update.ts (pause, resumption, amended fields or terms), termination.ts, seats.ts.
 */

/**
 * Stores a new contract and publishes `contract.created`. The caller has resolved `input.customerId` to a customer
 * of the account. The billing schedule is recorded before the contract is stored, so that every stored contract has
 * one whatever stops the insert. A contract naming no currency takes the account's default.
 */
export async function createContract(
  { repositories, accountId, log }: CallScope,
  input: ContractCreate,
  planned?: Pick<ContractCreateInMicros, "plan" | "planOverrides" | "products" | "productGroups">,
) {
  await requireLiveTaxRates(repositories, accountId, contractTaxCodes(input));
  const currency = input.currency ?? (await repositories.accounts.get(accountId))?.defaultCurrency;
  const terms = { ...contractInMicros({ ...input, ...(currency !== undefined && { currency }) }), ...planned };
  await checkUsagePricedOnce(repositories, accountId, terms);
  const prepared = repositories.contracts.prepare(accountId, terms);
  const stored = asReadNow(accountId, prepared.contract);
  await scheduleBilling(repositories, accountId, stored);
  // Its credit grants too, before it is stored: one never stored issues nothing (issuance finds no billed contract).
  await scheduleContractCredits({ repositories, accountId, log }, stored);
  // Before it is stored: a contract with thresholds never exists in an account whose ingestion skips their evaluation.
  if (terms.billingThresholdsMicros?.length) await repositories.accounts.markThresholdBilling(accountId);
  await prepared.store();
  await recordMrrCurve({ repositories, accountId }, stored, 0);
  const contract = presentContract(stored);
  await publishChange(repositories, accountId, log, { type: "contract.created", data: contract });
  return contract;
}
