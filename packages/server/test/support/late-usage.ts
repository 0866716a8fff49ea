import { type BillingAccount, billingAccount, usageProduct } from "./billing.js";
import { ADMIN_TOKEN, type TestServer } from "./server.js";

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

/** A fresh account whose customer (alias `acme`) has a TOKENS contract from March to June 2025. */
export async function tokensAccount(server: TestServer) {
  const account = await billingAccount(server, { name: "Acme", aliases: ["acme"] });
  await account.post("/meters", { key: "tokens", eventName: "llm", aggregation: "SUM", valueProperty: "n" }, 201);
  const contract = await account.contract({
    startDate: "2025-03-01T00:00:00Z",
    endDate: "2025-07-01T00:00:00Z",
    products: [TOKENS],
  });
  return { account, contract };
}

/** The account's `lateUsage` setting, through the admin API (the test reads the status). */
export const setLateUsage = (server: TestServer, account: BillingAccount, lateUsage: unknown) =>
  server.rest("PATCH", `/admin/accounts/${account.accountId}`, { token: ADMIN_TOKEN, body: { lateUsage } });
