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

/**
 * March's usage of the backfill tests, invoiced by the run at Apr 1: a (Mar 5) 500, b and c (Mar 10) 300 + 400, d
 * (Mar 11, the day after their Mar 10 window) 100 tokens. Returns March's invoice, whose amount the test checks.
 */
export async function marchInvoiced(account: BillingAccount, contractId: string) {
  await account.post("/events", {
    events: [
      tokens("a", "2025-03-05T10:00:00Z", 500),
      tokens("b", "2025-03-10T10:00:00Z", 300),
      tokens("c", "2025-03-10T18:00:00Z", 400),
      tokens("d", "2025-03-11T00:00:00Z", 100),
    ],
  });
  await account.run("2025-04-01T00:00:00Z");
  const [march] = await account.invoices(contractId);
  return march;
}

/** The account's `lateUsage` setting, through the admin API (the test reads the status). */
export const setLateUsage = (server: TestServer, account: BillingAccount, lateUsage: unknown) =>
  server.rest("PATCH", `/admin/accounts/${account.accountId}`, { token: ADMIN_TOKEN, body: { lateUsage } });

/** A backfill as GET /backfills/{backfillId} shows it. */
export const getBackfill = async (server: TestServer, account: BillingAccount, id: string) =>
  (await server.rest("GET", `/backfills/${id}`, { token: account.token })).body.backfill;

/** Upkeep ticks until the backfill is COMPLETED or FAILED, then one more (its last voids applied to the rollups). */
export async function untilBackfillDone(server: TestServer, account: BillingAccount, id: string) {
  for (let tick = 0; tick < 20; tick += 1) {
    await server.service.upkeep.tick();
    const { status } = await getBackfill(server, account, id);
    if (status === "COMPLETED" || status === "FAILED") break;
  }
  await server.service.upkeep.tick();
  return getBackfill(server, account, id);
}

/** The customer's March tokens (GET /usage). */
export const marchTokens = async (server: TestServer, account: BillingAccount) => {
  const query = `customerId=${account.customerId}&meterKey=tokens&startDate=2025-03-01&endDate=2025-04-01`;
  return (await server.rest("GET", `/usage?${query}`, { token: account.token })).body.usage.value;
};
