import type { OverrideInMicros, ProductInMicros, TermsInMicros } from "../billing/contract.js";

export type { OverrideInMicros } from "../billing/contract.js";

const names = (product: ProductInMicros, name: string) =>
  product.displayName === name || (product.catalogProductId !== undefined && product.catalogProductId === name);

/** Every product of the terms, those of groups too. */
const allProducts = ({ products = [], productGroups = [] }: TermsInMicros) => [
  ...products,
  ...productGroups.flatMap((group) => group.products),
];

/** The overrides naming no product of these terms, with their index in the list. */
export function unknownOverrides(terms: TermsInMicros, overrides: readonly OverrideInMicros[]) {
  const products = allProducts(terms);
  return overrides.flatMap((override, index) =>
    products.some((product) => names(product, override.product)) ? [] : [{ index, product: override.product }],
  );
}

/** `micros` less `percent` (two decimals), rounded half up to a micro-unit: 2000 µ less 25 % = 1500 µ. */
export const discounted = (micros: number, percent: number) =>
  Math.round((micros * (10_000 - Math.round(percent * 100))) / 10_000);

/** A price's amounts (the fields named …price…Micros: price, unitPrice, flatPrice, overagePrice) less `percent`. */
function discountedAmounts<T extends object>(value: T, percent: number): T {
  const entries = Object.entries(value).map(([key, field]) => {
    if (typeof field === "number" && /price/i.test(key)) return [key, discounted(field, percent)];
    if (Array.isArray(field))
      return [key, field.map((item) => (typeof item === "object" ? discountedAmounts(item, percent) : item))];
    return [key, field];
  });
  return Object.fromEntries(entries) as T;
}

function overridden(product: ProductInMicros, override: OverrideInMicros): ProductInMicros {
  const { pricing, commitment, taxRateCodes, discountPercent } = override;
  let result: ProductInMicros = { ...product };
  // A usage price and a commitment exclude each other on a product: the one given takes the other's place.
  if (pricing) {
    const { commitment: _dropped, ...rest } = result;
    result = { ...rest, pricing };
  }
  if (commitment) {
    const { pricing: _dropped, ...rest } = result;
    result = { ...rest, commitment };
  }
  if (taxRateCodes) result = { ...result, taxRateCodes };
  if (discountPercent !== undefined && discountPercent > 0) {
    if (result.pricing) result = { ...result, pricing: discountedAmounts(result.pricing, discountPercent) };
    if (result.commitment) result = { ...result, commitment: discountedAmounts(result.commitment, discountPercent) };
  }
  return result;
}

const applyAll = (product: ProductInMicros, overrides: readonly OverrideInMicros[]) =>
  overrides.reduce(
    (current, override) => (names(product, override.product) ? overridden(current, override) : current),
    product,
  );

/**
 * A plan version's terms as a contract with these overrides bills them: each override applied to the products it
 * names (in groups too), in order. Overrides naming no product are left out (see unknownOverrides).
 */
export function resolvePlanTerms(terms: TermsInMicros, overrides: readonly OverrideInMicros[]): TermsInMicros {
  return {
    ...(terms.products && { products: terms.products.map((product) => applyAll(product, overrides)) }),
    ...(terms.productGroups && {
      productGroups: terms.productGroups.map((group) => ({
        ...group,
        products: group.products.map((product) => applyAll(product, overrides)),
      })),
    }),
  };
}
