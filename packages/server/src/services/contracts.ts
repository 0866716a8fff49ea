import type { ContractCreate } from "@billing/shared";
import { notFound } from "../domain/errors.js";
import { contractInMicros, presentContract } from "../presenters/contracts.js";
import { scheduleBilling } from "./billing/scheduling.js";
import type { CallScope } from "./call-scope.js";
import { checkUsagePricedOnce } from "./priced-usage.js";
import { contractTaxCodes, requireLiveTaxRates } from "./tax-rates.js";
import { publishChange } from "./webhook-events.js";

/**
 * Stores a new contract and publishes `contract.created`. The caller has resolved `input.customerId` to a customer
 * of the account. The billing schedule is recorded before the contract is stored, so that every stored contract has
 * one whatever stops the insert. A contract naming no currency takes the account's default.
 */
export async function createContract({ repositories, accountId, log }: CallScope, input: ContractCreate) {
  await requireLiveTaxRates(repositories, accountId, contractTaxCodes(input));
  const currency = input.currency ?? (await repositories.accounts.get(accountId))?.defaultCurrency;
  const terms = contractInMicros({ ...input, ...(currency !== undefined && { currency }) });
  await checkUsagePricedOnce(repositories, accountId, terms);
  const { contract: stored, store } = repositories.contracts.prepare(accountId, terms);
  await scheduleBilling(repositories, accountId, stored);
  await store();
  const contract = presentContract(stored);
  await publishChange(repositories, accountId, log, { type: "contract.created", data: contract });
  return contract;
}

/** Deletes the contract (404 when it is not a live contract of the account) and publishes `contract.deleted`. */
export async function deleteContract({ repositories, accountId, log }: CallScope, contractId: string) {
  const found = await repositories.contracts.softDelete(accountId, contractId);
  if (!found) throw notFound("Contract");
  const deleted = presentContract(found);
  await publishChange(repositories, accountId, log, { type: "contract.deleted", data: deleted });
  return deleted;
}
