import { data as isoCurrencies } from "currency-codes";
import { z } from "zod";

/**
 * ISO 4217 codes the service bills in: those of the `currency-codes` package (the ISO list), less the entries that
 * are no money (metals, bond units, the testing and "no currency" codes: their countries are ISO's `ZZ…` markers).
 */
export const CURRENCY_CODES = isoCurrencies
  .filter(({ countries }) => !countries.every((country) => country.startsWith("Zz")))
  .map(({ code }) => code) as [string, ...string[]];

/** An ISO 4217 currency code: the document lists them, so an outside tool sends only currencies the service has. */
export const currencyCode = z
  .enum(CURRENCY_CODES, { error: "not an ISO 4217 currency code" })
  .meta({ id: "CurrencyCode", description: "ISO 4217 code, e.g. USD, EUR, JPY, KWD." });
