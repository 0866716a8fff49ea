import { MICROS_PER_UNIT, toMicros } from "@billing/shared";
import { roundHalfUp } from "../money/currency.js";
import { addMicros, type Micros, subMicros, sumMicros, ZERO_MICROS } from "../money/micros.js";

/** A tax rate as it prices a line: copied onto the line, so a line priced with it never changes. */
export interface TaxRateTerms {
  code: string;
  name: string;
  /** Percent, at most 4 decimals. */
  rate: number;
  inclusive: boolean;
}

/** One rate's tax on one line, in micro-units. */
export interface LineTaxInMicros extends TaxRateTerms {
  taxableMicros: Micros;
  amountMicros: Micros;
}

/** What decides an invoice's taxes besides its lines (each line carries its product's or group's codes). */
export interface TaxTerms {
  /** The customer is tax-exempt: no line is taxed. */
  exempt: boolean;
  /** The codes named below products, most specific first: the contract's, the customer's, the account's default. */
  fallbackCodes: (readonly string[] | undefined)[];
  /** The account's live (not archived) rates named by any level, by code. */
  liveRates: ReadonlyMap<string, TaxRateTerms>;
  /** Digits of the currency's minor unit (2 for USD): each tax is rounded to it. */
  minorUnitDigits: number;
}

/** No taxes at all: what an invoice has when nothing names a rate. */
export const NO_TAX: TaxTerms = { exempt: false, fallbackCodes: [], liveRates: new Map(), minorUnitDigits: 2 };

/** The first level that names a code (an empty list names none), else none. */
export const mostSpecificCodes = (...levels: (readonly string[] | undefined)[]): readonly string[] | undefined =>
  levels.find((codes) => codes !== undefined && codes.length > 0);

/** A percent rate as parts per million of the amount, exactly (19.5 → 195000): from its decimal text. */
export const ratePpm = (rate: number): bigint => BigInt(toMicros(rate) / 100);

const PPM = 1_000_000n;

/** The money rule (roundHalfUp) to the minor unit of `minorUnitDigits` decimals, the tax terms' currency's. */
const roundToMinorUnit = (numerator: bigint, denominator: bigint, minorUnitDigits: number): Micros =>
  roundHalfUp(numerator, denominator, MICROS_PER_UNIT / 10 ** minorUnitDigits);

/**
 * The taxes of one line whose amount (after discounts, before credits) is `amountMicros`, under `rates`, each rate
 * rounded on its own to the minor unit, half up. Inclusive rates are split out of the amount first: each takes
 * amount × rate / (100 + the inclusive rates' sum); exclusive rates are then added on what is left (the amount net
 * of tax), which is every rate's taxable amount.
 */
export function lineTaxes(
  amountMicros: Micros,
  rates: readonly TaxRateTerms[],
  minorUnitDigits: number,
): LineTaxInMicros[] {
  const amount = BigInt(amountMicros);
  const inclusive = rates.filter((rate) => rate.inclusive);
  const inclusivePpm = inclusive.reduce((sum, rate) => sum + ratePpm(rate.rate), 0n);
  const included = inclusive.map((rate) => ({
    rate,
    amountMicros: roundToMinorUnit(amount * ratePpm(rate.rate), PPM + inclusivePpm, minorUnitDigits),
  }));
  const taxableMicros = subMicros(amountMicros, sumMicros(included.map((tax) => tax.amountMicros)));
  const added = rates
    .filter((rate) => !rate.inclusive)
    .map((rate) => ({
      rate,
      amountMicros: roundToMinorUnit(BigInt(taxableMicros) * ratePpm(rate.rate), PPM, minorUnitDigits),
    }));
  const byCode = new Map([...included, ...added].map((tax) => [tax.rate.code, tax.amountMicros]));
  // In the order the terms name them.
  return rates.map((rate) => ({ ...rate, taxableMicros, amountMicros: byCode.get(rate.code) ?? ZERO_MICROS }));
}

/**
 * The rates that apply to a line whose product or group names `lineCodes`: the most specific level naming any
 * (product or group, contract, customer, account); of its codes, the live ones (an archived rate prices no new
 * invoice). None for a tax-exempt customer.
 */
export function applicableRates(lineCodes: readonly string[] | undefined, terms: TaxTerms): TaxRateTerms[] {
  if (terms.exempt) return [];
  const codes = mostSpecificCodes(lineCodes, ...terms.fallbackCodes) ?? [];
  return codes.flatMap((code) => {
    const rate = terms.liveRates.get(code);
    return rate ? [rate] : [];
  });
}

const taxOfKind = (taxes: readonly LineTaxInMicros[], inclusive: boolean): Micros =>
  sumMicros(taxes.filter((tax) => tax.inclusive === inclusive).map((tax) => tax.amountMicros));

/** The tax a line adds to what it asks (`revenueBreakdown.tax`): its exclusive rates'. */
export const addedTaxMicros = (taxes: readonly LineTaxInMicros[]) => taxOfKind(taxes, false);

/** The tax already in a line's amount (`revenueBreakdown.taxInclusive`): its inclusive rates', shown, never added. */
export const includedTaxMicros = (taxes: readonly LineTaxInMicros[]) => taxOfKind(taxes, true);

/** The invoice's taxes per rate: its lines' summed by code, rate and inclusive, in the order first met. */
export function taxSummaryOf(lines: readonly { taxes: readonly LineTaxInMicros[] }[]): LineTaxInMicros[] {
  const summary = new Map<string, LineTaxInMicros>();
  for (const tax of lines.flatMap((line) => line.taxes)) {
    const key = `${tax.code}/${tax.rate}/${tax.inclusive}`;
    const sofar = summary.get(key);
    summary.set(
      key,
      sofar
        ? {
            ...sofar,
            taxableMicros: addMicros(sofar.taxableMicros, tax.taxableMicros),
            amountMicros: addMicros(sofar.amountMicros, tax.amountMicros),
          }
        : { ...tax },
    );
  }
  return [...summary.values()];
}
