import type { Contract, ContractCreate } from "@billing/shared";
import { notFound } from "../domain/errors.js";
import { scheduleBilling } from "./billing/scheduling.js";
import { checkUsagePricedOnce } from "./priced-usage.js";
import { type ChangeCall, publishChange } from "./webhook-events.js";

/**
 * Stores a new contract and publishes `contract.created`. The caller has resolved `input.customerId` to a customer
 * of the account. The billing schedule is recorded before the contract is stored, so that every stored contract has
 * one whatever stops the insert.
 */
export async function createContract({ repositories, accountId, trace }: ChangeCall, input: ContractCreate) {
  await checkUsagePricedOnce(repositories, accountId, input);
  const { contract, store } = repositories.contracts.prepare(accountId, input);
  await scheduleBilling(repositories, accountId, contract);
  await store();
  await publishChange(repositories, accountId, trace.log, { type: "contract.created", data: contract });
  return contract;
}

/** Deletes the contract (404 when it is not a live contract of the account) and publishes `contract.deleted`. */
export async function deleteContract({ repositories, accountId, trace }: ChangeCall, contractId: string) {
  const deleted: Contract | undefined = await repositories.contracts.softDelete(accountId, contractId);
  if (!deleted) throw notFound("Contract");
  await publishChange(repositories, accountId, trace.log, { type: "contract.deleted", data: deleted });
  return deleted;
}
