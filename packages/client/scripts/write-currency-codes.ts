// Writes src/currency.ts: the ISO 4217 codes the service accepts (@billing/shared's CURRENCY_CODES, a list computed
// when the server starts, so `string[]` to the compiler) as a literal list, for the SDK's `CurrencyCode` union.
// Run it again when that list changes: test/currency.test.ts fails until then. `pnpm exec tsx scripts/…` runs it.
import { writeFileSync } from "node:fs";
import { CURRENCY_CODES } from "@billing/shared";

const perLine = 14;
const lines: string[] = [];
for (let index = 0; index < CURRENCY_CODES.length; index += perLine) {
  lines.push(
    `  ${CURRENCY_CODES.slice(index, index + perLine)
      .map((code) => JSON.stringify(code))
      .join(", ")},`,
  );
}
const source = `// Written by scripts/write-currency-codes.ts from @billing/shared's CURRENCY_CODES: not edited by hand.
/** The ISO 4217 codes the service accepts in a \`currency\` field, as its API document lists them. */
// biome-ignore format: a table of codes, as the script writes it
export const CURRENCY_CODES = [
${lines.join("\n")}
] as const;

/** An ISO 4217 code the service accepts, e.g. \`"USD"\`, \`"EUR"\`, \`"JPY"\`: the type of every \`currency\` field. */
export type CurrencyCode = (typeof CURRENCY_CODES)[number];
`;
writeFileSync(new URL("../src/currency.ts", import.meta.url), source);
console.log(`src/currency.ts: ${CURRENCY_CODES.length} codes`);
