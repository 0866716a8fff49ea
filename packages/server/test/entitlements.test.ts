import { describe, expect, it } from "vitest";
import { billingAccount, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/**
 * Entitlements through REST: the limit is the commitment's units of the product naming the meter in the customer's
 * contract in force, usage is the current cycle's (monthly on the 1st here: this calendar month), and only BLOCK
 * takes access away. A COUNT meter counts each event as 1.
 */
const server = useTestServer();

const now = new Date();
const thisMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
const lastYear = new Date(Date.UTC(now.getUTCFullYear() - 1, 0, 1)).toISOString();

/** An account whose customer (alias `alias`) has a contract committing to 5 `calls` a month under `limitStrategy`. */
async function entitledAccount(alias: string, limitStrategy?: "NONE" | "BLOCK") {
  const account = await billingAccount(server, { aliases: [alias], externalId: `ext-${alias}` });
  await account.post("/meters", { key: "calls", eventName: "api_call", aggregation: "COUNT" }, 201);
  await account.post("/meters", { key: "storage", eventName: "stored", aggregation: "COUNT" }, 201);
  const commitment = { units: 5, price: 10, ...(limitStrategy && { limitStrategy }) };
  await account.contract({
    startDate: lastYear,
    products: [{ displayName: "API", catalogProductId: "calls", scheduling: monthly(1), commitment }],
  });
  let sent = 0;
  const send = (count: number) => {
    const batch = account.post("/events", {
      events: Array.from({ length: count }, (_, index) => ({
        ref: `${alias}-${sent + index}`,
        name: "api_call",
        timestamp: new Date(Date.now() - 1000).toISOString(),
        customerAlias: alias,
      })),
    });
    sent += count;
    return batch;
  };
  const entitlement = async (meterKey = "calls", customer = account.customerId) =>
    server.rest("GET", `/customers/${customer}/entitlements/${meterKey}`, { token: account.token });
  return { ...account, send, entitlement };
}

describe("GET /customers/{customerId}/entitlements", () => {
  it("BLOCK: access until usage reaches the committed units", async () => {
    const account = await entitledAccount("block", "BLOCK");
    await account.send(4);
    expect((await account.entitlement()).body.entitlement).toEqual({
      meterKey: "calls",
      hasAccess: true,
      usage: 4,
      limit: 5,
      remaining: 1, // 5 − 4
      periodStart: thisMonth,
      periodEnd: nextMonth,
    });
    await account.send(1);
    // usage 5 ≥ limit 5: blocked, nothing left.
    expect((await account.entitlement()).body.entitlement).toMatchObject({ hasAccess: false, usage: 5, remaining: 0 });
    const list = await server.rest("GET", `/customers/ext-block/entitlements`, { token: account.token });
    expect(list.status).toBe(200);
    expect(list.body.entitlements).toEqual([(await account.entitlement()).body.entitlement]);
  });

  it("NONE (the default): access whatever the usage", async () => {
    const account = await entitledAccount("none");
    await account.send(6);
    // usage 6 > limit 5: remaining max(5 − 6, 0) = 0, access all the same.
    expect((await account.entitlement()).body.entitlement).toMatchObject({
      hasAccess: true,
      usage: 6,
      limit: 5,
      remaining: 0,
    });
  });

  it("a meter no contract names is unlimited over the UTC month; it is not listed", async () => {
    const account = await entitledAccount("unlimited", "BLOCK");
    expect((await account.entitlement("storage")).body.entitlement).toEqual({
      meterKey: "storage",
      hasAccess: true,
      usage: 0,
      limit: null,
      remaining: null,
      periodStart: thisMonth,
      periodEnd: nextMonth,
    });
    const list = await server.rest("GET", `/customers/${account.customerId}/entitlements`, { token: account.token });
    expect(list.body.entitlements.map(({ meterKey }: { meterKey: string }) => meterKey)).toEqual(["calls"]);
  });

  it("an unknown meter, an unknown customer and another account's customer are 404", async () => {
    const account = await entitledAccount("owner", "BLOCK");
    const other = await entitledAccount("other", "BLOCK");
    expect((await account.entitlement("nope")).status).toBe(404);
    expect((await account.entitlement("calls", "no-such-customer")).status).toBe(404);
    const theirs = await server.rest("GET", `/customers/${other.customerId}/entitlements/calls`, {
      token: account.token,
    });
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe("NOT_FOUND");
    const theirList = await server.rest("GET", `/customers/${other.customerId}/entitlements`, { token: account.token });
    expect(theirList.status).toBe(404);
  });
});
