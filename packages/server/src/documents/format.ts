import type { address as addressSchema } from "@billing/shared";
import type { z } from "zod";
import { minorUnitDigitsOf } from "../domain/money/currency.js";

/**
 * An amount exactly as the API gives it (a decimal with at most 6 places), padded to the currency's minor unit and
 * never rounded: in USD 12.5 → "12.50", 0.000123 → "0.000123" (a unit price); in JPY 12 → "12", 0.5 → "0.5"; in KWD
 * 1.5 → "1.500". `toFixed(6)` is exact for any amount of the money rule, whose values are the nearest doubles to
 * 6-place decimals below 1e9; only trailing zeros past the minor unit are dropped.
 */
export function formatAmount(amount: number, currency: string): string {
  const digits = minorUnitDigitsOf(currency);
  const [whole, fraction = ""] = amount.toFixed(6).split(".");
  const shown = fraction.slice(0, digits) + fraction.slice(digits).replace(/0+$/, "");
  return shown === "" ? `${whole}` : `${whole}.${shown}`;
}

/** The formatter of one document's amounts: all in its currency. */
export const amountsIn =
  (currency: string) =>
  (amount: number): string =>
    formatAmount(amount, currency);

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
