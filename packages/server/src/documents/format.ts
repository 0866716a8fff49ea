import type { address as addressSchema } from "@billing/shared";
import type { z } from "zod";

/**
 * An amount exactly as the API gives it (a USD decimal with at most 6 places), padded to at least 2 places and never
 * rounded: 12.5 → "12.50", 0.000123 → "0.000123". `toFixed(6)` is exact for any amount of the money rule, whose
 * values are the nearest doubles to 6-place decimals below 1e9; only trailing zeros past the cents are dropped.
 */
export function formatAmount(amount: number): string {
  const [whole, fraction = ""] = amount.toFixed(6).split(".");
  return `${whole}.${fraction.replace(/0{1,4}$/, "")}`;
}

/** A quantity as the API gives it: the shortest decimal text of the number, never exponent notation. */
export const formatQuantity = (quantity: number): string =>
  quantity.toLocaleString("en-US", { useGrouping: false, maximumFractionDigits: 20 });

/** The calendar day of an ISO timestamp, in UTC, as every timestamp of the API is. */
export const formatDate = (timestamp: string): string => new Date(timestamp).toISOString().slice(0, 10);

export type Address = z.infer<typeof addressSchema>;

/** An address as lines: street text (its own line breaks kept), postal code and city, state, country. */
export function addressLines(address: Address | undefined): string[] {
  if (!address) return [];
  const cityLine = [address.postalCode, address.city].filter(Boolean).join(" ");
  return [...(address.addressText?.split(/\r?\n/) ?? []), cityLine, address.state ?? "", address.country ?? ""]
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}
