import { billingAccount } from "./billing.js";
import type { TestServer } from "./server.js";

/**
 * A new account whose customer has the alias "a1" and a SUM meter `tok-sum` over the `tokens` of "tok" events, and
 * its usage read over 2024-05-01 and 2024-05-02: the set-up of the rollup repair and migration tests.
 */
export async function tokensAccount(server: TestServer, name: string) {
  const account = await billingAccount(server, { name, aliases: ["a1"] });
  await account.post("/meters", { key: "tok-sum", eventName: "tok", aggregation: "SUM", valueProperty: "tokens" }, 201);
  const usage = async () =>
    (
      await server.rest(
        "GET",
        `/usage?customerId=${account.customerId}&meterKey=tok-sum&startDate=2024-05-01&endDate=2024-05-03`,
        { token: account.token },
      )
    ).body.usage.value;
  return { account, usage };
}
