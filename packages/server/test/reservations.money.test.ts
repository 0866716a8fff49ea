import { describe, expect, it } from "vitest";
import type { RunningService } from "../src/app.js";
import { billingAccount } from "./support/billing.js";
import { pooled } from "./support/pooled.js";
import { type TestServer, useServerAndTwin } from "./support/server.js";

/**
 * Money reservations (docs/decisions.md, "Money reservations"): `currency` instead of `meterKey` holds money against
 * the customer's prepaid credit balance, on two instances of the service sharing one database; the settlement takes
 * the money off the balance once (`Usage` entries with `reservationId`); an unsettled one frees its hold after its
 * TTL. Figures by hand in the comments.
 */
let server: TestServer;
let twin: RunningService;
useServerAndTwin((both) => ({ server, twin } = both));

/** An account whose customer holds a grant of `credits` USD. */
async function fundedAccount(credits: number, fields: Record<string, unknown> = {}) {
  const account = await billingAccount(server, {}, fields);
  await account.grant(credits);
  const call = (path: string, body: Record<string, unknown>, url = server.url) =>
    fetch(`${url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then(async (response) => ({ status: response.status, body: await response.json() }));
  const reserve = (body: Record<string, unknown>, url = server.url) =>
    call(`/customers/${account.customerId}/reservations`, { currency: "USD", ttlSeconds: 600, ...body }, url);
  const settle = (id: string, amount: number, url = server.url) => call(`/reservations/${id}/settle`, { amount }, url);
  return { ...account, reserve, settle };
}

describe("money reservations against the credit balance, on two instances", () => {
  it("balance 5.00: 16 reservations of 0.50 admit exactly 10; settling 0.30 each debits 3.00 once", {
    timeout: 60_000,
  }, async () => {
    const account = await fundedAccount(5);
    const urls = [server.url, twin.url];
    const answers = await pooled(
      Array.from({ length: 16 }, (_, i) => () => account.reserve({ amount: 0.5, ref: `m${i}` }, urls[i % 2])),
      8,
    );
    // 5.00 / 0.50 = 10 fit; the 6 others are refused with nothing left.
    const admitted = answers.filter((answer) => answer.status === 201);
    expect(admitted).toHaveLength(10);
    for (const answer of answers.filter((one) => one.status !== 201))
      expect(answer.body).toMatchObject({ code: "LIMIT_REACHED", remaining: 0 });
    expect(admitted[0]?.body.reservation).toMatchObject({ currency: "USD", amount: 0.5, status: "OPEN" });
    expect(admitted[0]?.body.reservation).not.toHaveProperty("meterKey");
    // Holding is not spending: the ledger still has its one grant, balance 5.00.
    expect(await account.balance()).toBe(5);

    // Each settled with 0.30 twice at once, on both instances: one debit each, 10 × 0.30 = 3.00.
    const ids = admitted.map((answer) => answer.body.reservation.id as string);
    const settled = await pooled(
      ids.flatMap((id) => [() => account.settle(id, 0.3, urls[0]), () => account.settle(id, 0.3, urls[1])]),
      8,
    );
    expect(settled.map((answer) => answer.status)).toEqual(settled.map(() => 200));
    expect(settled[0]?.body.reservation).toMatchObject({ status: "SETTLED", amount: 0.5, settledAmount: 0.3 });
    const usage = (await account.ledger()).filter((entry: any) => entry.type === "Usage");
    expect(usage.map((entry: any) => [entry.reservationId, entry.amount]).sort()).toEqual(
      ids.map((id) => [id, -0.3]).sort(),
    );
    // 5.00 − 3.00 = 2.00 left and nothing held: 2.01 does not fit (remaining 2), 2.00 does, then 0 remain.
    expect(await account.balance()).toBe(2);
    const over = await account.reserve({ amount: 2.01, ref: "over" }, twin.url);
    expect([over.status, over.body.code, over.body.remaining]).toEqual([409, "LIMIT_REACHED", 2]);
    expect((await account.reserve({ amount: 2, ref: "rest" })).status).toBe(201);
    expect((await account.reserve({ amount: 0.01, ref: "none" })).body.remaining).toBe(0);
    // Another amount is 409; more than held is 400 naming amount; a ref names one reservation.
    expect((await account.settle(ids[0] as string, 0.2)).status).toBe(409);
    const more = await account.settle(ids[0] as string, 0.51);
    expect([more.status, more.body.issues?.[0]?.path]).toEqual([400, "amount"]);
    expect((await account.reserve({ amount: 0.01, ref: "m0" })).status).toBe(409);
  });

  it("an unsettled money reservation frees its hold after its TTL (+10 s), never debiting", async () => {
    const at = "2027-03-10T00:00:00.000Z";
    const account = await fundedAccount(10, { testClock: { at } });
    const held = (await account.reserve({ amount: 6, ttlSeconds: 60, ref: "h1" })).body.reservation;
    expect(held).toMatchObject({ status: "OPEN", amount: 6, expiresAt: "2027-03-10T00:01:00.000Z" });
    // 10.00 − 6.00 held = 4.00: 4.01 is refused with 4 remaining.
    const refused = await account.reserve({ amount: 4.01, ref: "h2" });
    expect([refused.status, refused.body.remaining]).toEqual([409, 4]);
    const advance = (to: string) => server.rest("POST", "/test-clock/advance", { token: account.token, body: { to } });
    expect((await advance("2027-03-10T00:01:10.000Z")).status).toBe(200);
    expect((await account.settle(held.id, 6)).status).toBe(409);
    // Free again, and nothing was taken off: the whole 10.00 fits.
    expect((await account.reserve({ amount: 10, ref: "h3" })).status).toBe(201);
    expect(await account.balance()).toBe(10);
  });

  it("refuses both or neither of meterKey and currency, and money below a cent (400 naming it)", async () => {
    const account = await fundedAccount(1);
    const both = await account.reserve({ meterKey: "tokens", amount: 1, ref: "b1" });
    expect([both.status, both.body.issues?.map((issue: any) => issue.path)]).toEqual([400, ["currency"]]);
    const neither = await account.reserve({ currency: undefined, amount: 1, ref: "b2" });
    expect([neither.status, neither.body.issues?.map((issue: any) => issue.path)]).toEqual([400, ["meterKey"]]);
    const fraction = await account.reserve({ amount: 0.001, ref: "b3" });
    expect([fraction.status, fraction.body.issues?.map((issue: any) => issue.path)]).toEqual([400, ["amount"]]);
    // Nothing was written: the refs are free.
    expect((await account.reserve({ amount: 1, ref: "b1" })).status).toBe(201);
  });
});
