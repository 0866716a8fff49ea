import type { ContractInMicros } from "../domain/billing/contract.js";
import type { CycleCharge } from "../domain/billing/items.js";
import { NO_TAX, type TaxRateTerms, type TaxTerms } from "../domain/billing/tax.js";
import { conflict } from "../domain/errors.js";
import { minorUnitDigitsOf } from "../domain/money/currency.js";
import type { Repositories } from "../repositories/index.js";

/** Every code a contract's products and product groups name. */
const termCodes = ({ products = [], productGroups = [] }: ContractInMicros) => [
  ...products.flatMap((product) => product.taxRateCodes ?? []),
  ...productGroups.flatMap((group) => [
    ...(group.taxRateCodes ?? []),
    ...group.products.flatMap((product) => product.taxRateCodes ?? []),
  ]),
];

/**
 * Every code the cycle's charges name: an amended cycle bills the days of each version of the terms with that
 * version's items, whose codes the current terms may no longer name.
 */
const chargeCodes = (charges: readonly CycleCharge[]) =>
  charges.flatMap(({ item }) => [
    ...(item.taxRateCodes ?? []),
    ...item.prices.flatMap((price) => price.taxRateCodes ?? []),
  ]);

/**
 * What taxes a contract's invoice for a cycle as of now: the customer's exemption, the codes of the levels below
 * products (contract, customer, account default) and the live rates any level or any version's charge names, read
 * once (the rates are current: a draft is re-priced with them; a finalized invoice keeps the rates copied onto its
 * lines). An archived rate taxes nothing new; a code naming no rate at all fails the invoice (409), never bills it
 * without its tax.
 */
export async function taxTermsOf(
  repositories: Repositories,
  accountId: string,
  contract: ContractInMicros,
  charges: readonly CycleCharge[],
): Promise<TaxTerms> {
  // Taxes round to the minor unit of the contract's currency, as its lines do.
  const minorUnitDigits = minorUnitDigitsOf(contract.currency);
  const [customer, account] = await Promise.all([
    repositories.customers.get(accountId, contract.customerId),
    repositories.accounts.get(accountId),
  ]);
  if (customer?.taxExempt) return { ...NO_TAX, exempt: true, minorUnitDigits };
  const fallbackCodes = [contract.taxRateCodes, customer?.taxRateCodes, account?.defaultTaxRateCodes];
  const codes = new Set([
    ...termCodes(contract),
    ...chargeCodes(charges),
    ...fallbackCodes.flatMap((level) => level ?? []),
  ]);
  const rates = await repositories.taxRates.ofCodes(accountId, [...codes]);
  const missing = [...codes].filter((code) => !rates.some((rate) => rate.code === code));
  if (missing.length > 0) {
    throw conflict(`The terms name tax rate codes the account does not have: ${missing.join(", ")}`);
  }
  const liveRates = new Map(
    rates
      .filter((rate) => !rate.archivedAt)
      .map(({ code, name, rate, inclusive }): [string, TaxRateTerms] => [code, { code, name, rate, inclusive }]),
  );
  return { exempt: false, fallbackCodes, liveRates, minorUnitDigits };
}
