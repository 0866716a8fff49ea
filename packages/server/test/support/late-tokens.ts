import { usageProduct } from "./billing.js";

/** GRADUATED tokens: the first 1,000 at 0.01, then 0.005 (issue 45's figures), for late-usage tests. */
export const TOKENS = usageProduct("Tokens", "tokens", {
  type: "GRADUATED",
  tiers: [
    { upTo: 1000, unitPrice: 0.01 },
    { upTo: null, unitPrice: 0.005 },
  ],
});

/** An `llm` event of `n` tokens for the customer under alias `acme`. */
export const tokens = (ref: string, timestamp: string, n: number) => ({
  ref,
  name: "llm",
  timestamp,
  customerAlias: "acme",
  data: { n: String(n) },
});
