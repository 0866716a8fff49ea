import type { Outputs } from "./api.js";
import { formatMoney } from "./format.js";

type CreditGrant = NonNullable<Outputs["plans"]["get"]["plan"]["creditGrants"]>[number];
type Product = Outputs["plans"]["get"]["plan"]["products"][number];

/** A recurring credit grant in words: `500.00 USD credits every month, rolling over up to 200.00 USD`. */
export function creditGrantText(grant: CreditGrant, currency: string): string {
  const { every, count, rollover } = grant.recurrence;
  const period = every.value === 1 ? "every month" : `every ${every.value} months`;
  return [
    `${formatMoney(grant.amount, currency)} credits ${period}`,
    ...(count !== undefined ? [`${count} times`] : []),
    ...(rollover ? [`rolling over up to ${formatMoney(rollover.maxAmount, currency)}`] : []),
  ].join(", ");
}

/** A product's deal terms in a few words: its seats, minimum, maximum and discounts (docs/decisions.md). */
export function productTermsText(product: Product, currency: string): string[] {
  const discounts = product.discounts?.length ?? 0;
  return [
    ...(product.seats !== undefined ? [`${product.seats} seats`] : []),
    ...(product.minimum !== undefined ? [`≥ ${formatMoney(product.minimum, currency)}`] : []),
    ...(product.maximum !== undefined ? [`≤ ${formatMoney(product.maximum, currency)}`] : []),
    ...(discounts > 0 ? [`${discounts} discount${discounts === 1 ? "" : "s"}`] : []),
  ];
}
