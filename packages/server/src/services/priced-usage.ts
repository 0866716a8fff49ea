import { BILLED_CONTRACT_STATUSES, DAY_MS, isUsagePrice } from "@billing/shared";
import type { ContractCreateInMicros, ProductInMicros } from "../domain/billing/contract.js";
import { termsWindows } from "../domain/contracts/amendments.js";
import { badRequest, conflict } from "../domain/errors.js";
import type { Repositories } from "../repositories/index.js";
import { readCustomerContracts } from "./contract-reads.js";

/** A meter whose usage a contract turns into money, and the product (with its input path) that does. */
interface PricedMeter {
  meterKey: string;
  product: string;
  path: string;
}

type ContractTerms = Pick<ContractCreateInMicros, "products" | "productGroups">;

const pricesUsage = (product: ProductInMicros) => product.pricing !== undefined && isUsagePrice(product.pricing.type);

/**
 * The meters a contract prices: those of usage-priced products, of products with a CHARGE commitment, and of
 * every product of a group whose commitment is CHARGE (a group's products share its commitment).
 */
export function pricedMeters({ products = [], productGroups = [] }: ContractTerms): PricedMeter[] {
  const priced: PricedMeter[] = [];
  products.forEach((product, index) => {
    if (product.catalogProductId && (pricesUsage(product) || product.commitment?.overageStrategy === "CHARGE")) {
      priced.push({
        meterKey: product.catalogProductId,
        product: product.displayName,
        path: `products.${index}.catalogProductId`,
      });
    }
  });
  productGroups.forEach((group, groupIndex) => {
    group.products.forEach((product, index) => {
      if (product.catalogProductId && (pricesUsage(product) || group.commitment?.overageStrategy === "CHARGE")) {
        const path = `productGroups.${groupIndex}.products.${index}.catalogProductId`;
        priced.push({ meterKey: product.catalogProductId, product: product.displayName, path });
      }
    });
  });
  return priced;
}

/** The UTC days a contract covers: from its start's day up to, not including, its end's day. */
const coveredDays = ({ startDate, endDate }: { startDate: string; endDate?: string | undefined }) => ({
  from: Math.floor(Date.parse(startDate) / DAY_MS),
  to: endDate === undefined ? Number.POSITIVE_INFINITY : Math.floor(Date.parse(endDate) / DAY_MS),
});

/** Whether two ranges of UTC day numbers (`to` excluded) share a day. */
const overlap = (a: { from: number; to: number }, b: { from: number; to: number }) => a.from < b.to && b.from < a.to;

const dayOf = (date: Date | undefined, otherwise: number) => (date ? Math.floor(date.getTime() / DAY_MS) : otherwise);

/**
 * One usage is billed once: a billed contract may price a meter only once (400 naming the second product), and
 * not over days another live, billed contract of the customer already prices it (409 naming the product), under
 * any version of that contract's terms over the days the version bills. `input` is a contract to create, or the
 * new terms of contract `amending` from their first day (its `startDate`) on, which its own versions do not clash with.
 */
export async function checkUsagePricedOnce(
  repositories: Repositories,
  accountId: string,
  input: ContractCreateInMicros,
  amending?: string,
) {
  if (!BILLED_CONTRACT_STATUSES.has(input.status)) return;
  const mine = new Map<string, PricedMeter>();
  for (const priced of pricedMeters(input)) {
    const earlier = mine.get(priced.meterKey);
    if (earlier) {
      const message = `meter "${priced.meterKey}" is already priced by "${earlier.product}" in this contract`;
      throw badRequest(`Product "${priced.product}": ${message}`, [{ path: priced.path, message }]);
    }
    mine.set(priced.meterKey, priced);
  }
  if (mine.size === 0) return;
  const days = coveredDays(input);
  for (const other of await readCustomerContracts(repositories, accountId, input.customerId)) {
    const theirs = coveredDays(other);
    if (other.id === amending || !BILLED_CONTRACT_STATUSES.has(other.status) || !overlap(days, theirs)) continue;
    for (const { terms, days: window } of termsWindows(other)) {
      const billed = {
        from: Math.max(dayOf(window.from, theirs.from), theirs.from),
        to: Math.min(dayOf(window.to, theirs.to), theirs.to),
      };
      const clash = overlap(days, billed) && pricedMeters(terms).find(({ meterKey }) => mine.has(meterKey));
      const product = clash && mine.get(clash.meterKey);
      if (!clash || !product) continue;
      const message =
        `meter "${clash.meterKey}" is already priced for this customer over overlapping days by ` +
        `contract ${other.id} ("${other.name}")`;
      throw conflict(`Product "${product.product}": ${message}`, [{ path: product.path, message }]);
    }
  }
}
