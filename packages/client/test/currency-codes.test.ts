// The SDK's literal list of currency codes (src/currency.ts, written by scripts/write-currency-codes.ts) against the
// list the service validates `currency` fields with: a code the service gains or loses fails here until the script
// runs again.
import { CURRENCY_CODES as accepted, currencyCode } from "@billing/shared";
import { describe, expect, it } from "vitest";
import { CURRENCY_CODES } from "../src/index.js";

describe("CURRENCY_CODES", () => {
  it("is the list of codes the service accepts, in its order", () => {
    expect([...CURRENCY_CODES]).toEqual([...accepted]);
  });

  it("holds only codes the service's schema accepts", () => {
    for (const code of CURRENCY_CODES) expect(currencyCode.safeParse(code).success, code).toBe(true);
    expect(currencyCode.safeParse("ABC").success).toBe(false);
  });
});
