import { billingNow } from "../billing-clock.js";
import type { PageRequest } from "../db/pagination.js";
import type { AppliedDiscount, ContractInMicros, ContractLifeFields } from "../domain/billing/contract.js";
import { contractAsOf } from "../domain/contracts/lifecycle.js";
import { redemptionDiscount } from "../presenters/coupons.js";
import type { Repositories } from "../repositories/index.js";

// What reads of contracts answer: each contract as time has made it now (renewed, expired, terminated when due: see
// contractAsOf), where the repository holds it as its last recorded change left it.

/**
 * The contract as time has made it now (the account's billing now: a test account's clock): what every read answers,
 * and every change announces.
 */
export const asReadNow = <C extends ContractLifeFields>(accountId: string, contract: C): C =>
  contractAsOf(contract, billingNow(accountId)).contract;

/** The account's live contract, as read now. */
export async function readContract(
  repositories: Repositories,
  accountId: string,
  contractId: string,
): Promise<ContractInMicros | undefined> {
  const contract = await repositories.contracts.get(accountId, contractId);
  return contract && asReadNow(accountId, contract);
}

/** The account's contract even when deleted (for what was billed before), as read now. */
export async function readContractIncludingDeleted(
  repositories: Repositories,
  accountId: string,
  contractId: string,
): Promise<ContractInMicros | undefined> {
  const contract = await repositories.contracts.getIncludingDeleted(accountId, contractId);
  return contract && asReadNow(accountId, contract);
}

/** Every live contract of a customer, oldest first, as read now. */
export async function readCustomerContracts(
  repositories: Repositories,
  accountId: string,
  customerId: string,
): Promise<ContractInMicros[]> {
  return (await repositories.contracts.ofCustomer(accountId, customerId)).map((contract) =>
    asReadNow(accountId, contract),
  );
}

/** A page of the account's live contracts (of one customer with `customerId`), as read now. */
export async function readContractPage(
  repositories: Repositories,
  accountId: string,
  request: PageRequest & { customerId?: string | undefined },
) {
  const { items, ...page } = await repositories.contracts.list(accountId, request);
  return { ...page, items: items.map((contract) => asReadNow(accountId, contract)) };
}

/**
 * The coupons the contract's invoices apply, as discounts: its redemptions, oldest first; an AMOUNT coupon of another
 * currency than the contract's (its currency changed since) applies to nothing.
 */
export async function couponsOf(
  repositories: Repositories,
  accountId: string,
  contract: ContractInMicros,
): Promise<AppliedDiscount[]> {
  const redemptions = await repositories.couponRedemptions.ofContract(accountId, contract.id);
  return redemptions
    .filter((redemption) => redemption.discount.type === "PERCENT" || redemption.currency === contract.currency)
    .map(redemptionDiscount);
}
