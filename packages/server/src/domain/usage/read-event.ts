import { type Meter, MICROS } from "@billing/shared";

/** A non-negative decimal, at most 15 integer digits and 6 significant decimals (zeros past the 6th are allowed). */
const DECIMAL = /^(\d{1,15})(?:\.(\d{1,6})0*)?$/;

/** The micro-units a data value stands for, or undefined when it is not a decimal number by that rule. */
export function decimalMicros(text: string): bigint | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, whole = "0", fraction = ""] = match;
  return BigInt(whole) * MICROS + BigInt(fraction.padEnd(6, "0"));
}

export type MeterRule = Pick<Meter, "aggregation" | "valueProperty" | "filters">;

/** What a meter reads from an event: a number of micro-units, or (UNIQUE_COUNT) the value to count once. */
export type Reading =
  | { counted: true; value: bigint | string }
  | { counted: false; reason: "FILTERED_OUT" | "MISSING_VALUE" | "VALUE_NOT_A_NUMBER" };

const dataValue = (data: Record<string, string>, key: string) => (Object.hasOwn(data, key) ? data[key] : undefined);

/** Whether and how a meter counts an event with this data. Filters first, then the value. */
export function readEvent(meter: MeterRule, data: Record<string, string>): Reading {
  const passes = (meter.filters ?? []).every(({ property, in: allowed }) => {
    const value = dataValue(data, property);
    return value !== undefined && allowed.includes(value);
  });
  if (!passes) return { counted: false, reason: "FILTERED_OUT" };
  if (meter.aggregation === "COUNT") return { counted: true, value: MICROS };
  const raw = meter.valueProperty === undefined ? undefined : dataValue(data, meter.valueProperty);
  if (raw === undefined) return { counted: false, reason: "MISSING_VALUE" };
  if (meter.aggregation === "UNIQUE_COUNT") return { counted: true, value: raw };
  const micros = decimalMicros(raw);
  return micros === undefined ? { counted: false, reason: "VALUE_NOT_A_NUMBER" } : { counted: true, value: micros };
}
