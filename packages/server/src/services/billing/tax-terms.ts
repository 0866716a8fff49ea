import type { ContractInMicros } from "../../domain/billing/contract.js";
import { NO_TAX, type TaxRateTerms, type TaxTerms } from "../../domain/billing/tax.js";
import { minorUnitDigitsOf } from "../../domain/money/currency.js";
import type { Repositories } from "../../repositories/index.js";

/** Every code a contract's products and product groups name. */
const termCodes = ({ products = [], productGroups = [] }: ContractInMicros) => [
  ...products.flatMap((product) => product.taxRateCodes ?? []),
  ...productGroups.flatMap((group) => [
    ...(group.taxRateCodes ?? []),
    ...group.products.flatMap((product) => product.taxRateCodes ?? []),
  ]),
];

/**
 * What taxes a contract's invoice as of now: the customer's exemption, the codes of the levels below products
 * (contract, customer, account default) and the live rates any level names, read once (the rates are current: a
 * draft is re-priced with them; a finalized invoice keeps the rates copied onto its lines).
 */
export async function taxTermsOf(
  repositories: Repositories,
  accountId: string,
  contract: ContractInMicros,
): Promise<TaxTerms> {
  // Taxes round to the minor unit of the contract's currency, as its lines do.
  const minorUnitDigits = minorUnitDigitsOf(contract.currency);
  const [customer, account] = await Promise.all([
    repositories.customers.get(accountId, contract.customerId),
    repositories.accounts.get(accountId),
  ]);
  if (customer?.taxExempt) return { ...NO_TAX, exempt: true, minorUnitDigits };
  const fallbackCodes = [contract.taxRateCodes, customer?.taxRateCodes, account?.defaultTaxRateCodes];
  const codes = new Set([...termCodes(contract), ...fallbackCodes.flatMap((level) => level ?? [])]);
  const rates = await repositories.taxRates.ofCodes(accountId, [...codes]);
  const liveRates = new Map(
    rates
      .filter((rate) => !rate.archivedAt)
      .map(({ code, name, rate, inclusive }): [string, TaxRateTerms] => [code, { code, name, rate, inclusive }]),
  );
  return { exempt: false, fallbackCodes, liveRates, minorUnitDigits };
}
