import { toMicros } from "@billing/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../src/app.js";
import { billingAccount, committed, sumMicros } from "./support/billing.js";
import { testHooks } from "./support/hooks.js";
import { startTestServer, startTwinService, type TestServer } from "./support/server.js";

/**
 * Payment, expiry and void of the same grant at the same time, on two instances of the service (docs/decisions.md,
 * "Credit ledger" → Exactly once). FerretDB loses concurrent updates, so only the ledger's unique sequence can keep
 * these exact: no grant ever gives more than it held, and every `balanceAfterEntry` is the sum of the entries so far.
 */
const control = testHooks();
let server: TestServer;
let twin: RunningService;
beforeAll(async () => {
  server = await startTestServer({ hooks: control.hooks });
  twin = await startTwinService(server);
});
afterAll(async () => {
  await twin.close();
  await server.close();
});

const ROUNDS = 16;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** A fixed pseudo-random sequence per round, so that a failing round can be replayed with the same timings. */
function offsets(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe("payment, expiry and void of one grant, concurrently", () => {
  it(`never take more than the grant held, and keep every balance exact (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const account = await billingAccount(server);
      // 1 × 7.77 a month from Jan 2024: six invoices due by Jul 1, 46.62 in all, more than both grants hold.
      const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 7.77)] });
      const expiresAt = new Date(Date.now() + 700);
      const target = (await account.grant(30, account.customerId, { expiresAt: expiresAt.toISOString() })).entry;
      const backup = (await account.grant(10, account.customerId, { priority: 60 })).entry;

      const random = offsets(round + 1);
      /** A call starting at a random moment within `span` ms from `from` ms after the expiry (negative: before). */
      const call =
        (from: number, span: number, url: string, method: string, path: string, body?: unknown) => async () => {
          await sleep(expiresAt.getTime() + from + random() * span - Date.now());
          const response = await fetch(`${url}${path}`, {
            method,
            headers: {
              authorization: `Bearer ${account.token}`,
              ...(body !== undefined && { "content-type": "application/json" }),
            },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          return { path, status: response.status };
        };
      const run = { at: "2024-07-01T00:00:00Z" };
      // Runs reach their payments a few hundred ms after they start; voids come, round after round, from 150 ms
      // before the expiry to 150 ms after it, so that each of the three takes the grant first in some rounds.
      const voidsFrom = ((round % 4) - 1.5) * 100 - 50;
      const calls = [server.url, twin.url].flatMap((url) => [
        call(-350, 300, url, "POST", "/billing-runs", run),
        call(-350, 300, url, "POST", "/billing-runs", run),
        call(voidsFrom, 100, url, "POST", `/credits/${target.id}/void`),
        call(-300, 600, url, "GET", `/credits/balance?customerId=${account.customerId}`),
        call(-300, 600, url, "GET", `/credits?customerId=${account.customerId}`),
      ]);
      const answers = await Promise.all(calls.map((start) => start()));
      await sleep(expiresAt.getTime() - Date.now() + 20);
      while ((await account.run(run.at)).hasMore);
      const balance = (
        await server.rest("GET", `/credits/balance?customerId=${account.customerId}`, { token: account.token })
      ).body;

      const ledger = await account.ledger();
      const voids = answers.filter((answer) => answer.path.endsWith("/void"));
      expect(answers.filter((answer) => !answer.path.endsWith("/void")).every((answer) => answer.status === 200)).toBe(
        true,
      );
      expect(voids.every((answer) => answer.status === 201 || answer.status === 409)).toBe(true);
      expect(voids.filter((answer) => answer.status === 201)).toHaveLength(
        ledger.filter((entry) => entry.type === "Void").length,
      );

      // Every balance is the sum of the entries up to it, never below zero.
      let running = 0;
      for (const entry of ledger) {
        running += toMicros(entry.amount);
        expect(toMicros(entry.balanceAfterEntry)).toBe(running);
      }
      expect(toMicros(balance.balance)).toBe(running);

      // No grant gave more than it held, at any point; the expiring one is gone at the end, by one last entry at most.
      const held = new Map<string, number>();
      for (const entry of ledger) {
        held.set(entry.grantId, (held.get(entry.grantId) ?? 0) + toMicros(entry.amount));
        expect(held.get(entry.grantId)).toBeGreaterThanOrEqual(0);
      }
      expect(held.get(target.id)).toBe(0);
      const removals = ledger.filter(
        (entry) => entry.grantId === target.id && (entry.type === "Expiration" || entry.type === "Void"),
      );
      expect(removals.length).toBeLessThanOrEqual(1);
      const spentOfTarget = sumMicros(
        ledger.filter((entry) => entry.grantId === target.id && entry.type === "Usage").map((entry) => entry.amount),
      );
      // 30 − what invoices took of it = what was left to expire or void.
      expect(removals.map((entry) => toMicros(entry.amount))).toEqual(
        spentOfTarget === -30_000_000 ? [] : [-30_000_000 - spentOfTarget],
      );
      if (removals[0]?.type === "Expiration")
        expect(Date.parse(removals[0].createdAt)).toBeGreaterThanOrEqual(expiresAt.getTime());
      expect(ledger.findLastIndex((entry) => entry.grantId === target.id && entry.type === "Usage")).toBeLessThan(
        removals.length ? ledger.indexOf(removals[0]) : ledger.length,
      );
      expect(balance.grants.map((open: any) => [open.grantId, toMicros(open.remaining)])).toEqual(
        held.get(backup.id)! > 0 ? [[backup.id, held.get(backup.id)]] : [],
      );

      // Six invoices, each carrying exactly its Usage entries, which are consecutive and one per grant.
      const invoices = await account.invoices(contract.id);
      expect(invoices).toHaveLength(6);
      for (const invoice of invoices) {
        const debits = ledger.filter((entry) => entry.type === "Usage" && entry.invoiceId === invoice.id);
        expect(toMicros(invoice.revenueBreakdown.creditsUsed)).toBe(0 - sumMicros(debits.map((entry) => entry.amount)));
        const places = debits.map((entry) => ledger.indexOf(entry));
        expect(places).toEqual(places.map((_, index) => places[0]! + index));
        expect(new Set(debits.map((entry) => entry.grantId)).size).toBe(debits.length);
      }
    }
  }, 240_000);
});

/**
 * The contested interleavings, forced: a movement pauses at `credits.append` (it has read the ledger and computed
 * its entry) while another movement of the same grant lands; released, its insert loses the place and it starts over
 * from the new last entry.
 */
describe("a movement that read the ledger before another one landed", () => {
  /** 1 × 7.77 a month from Jan 2024: a run as of Feb 1 makes January's invoice of 7.77. */
  const january = { startDate: "2024-01-01T00:00:00Z", products: [committed(1, 7.77)] };

  it("a void paused before its insert, while a billing run pays from the grant, voids only what is left", async () => {
    const account = await billingAccount(server);
    await account.contract(january);
    const grant = (await account.grant(30)).entry;
    const pause = control.pauseOnce("credits.append", account.customerId);
    const voiding = server.rest("POST", `/credits/${grant.id}/void`, { token: account.token });
    await pause.reached; // the void has read 30.00 left of the grant
    expect((await account.run("2024-02-01T00:00:00Z")).invoicesCreated).toBe(1);
    pause.release();

    const voided = await voiding;
    expect(voided.status).toBe(201);
    // 30.00 − 7.77 = 22.23 left to void, not 30.00.
    expect(voided.body.entry).toMatchObject({ type: "Void", amount: -22.23, balanceAfterEntry: 0, grantId: grant.id });
    expect((await account.ledger()).map((entry) => [entry.type, entry.amount, entry.balanceAfterEntry])).toEqual([
      ["Grant", 30, 30],
      ["Usage", -7.77, 22.23],
      ["Void", -22.23, 0],
    ]);
  });

  it("a payment paused before its insert, while the grant it chose is voided, pays from the next grant", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(january);
    const first = (await account.grant(30)).entry;
    const backup = (await account.grant(10, account.customerId, { priority: 60 })).entry;
    const pause = control.pauseOnce("credits.append", account.customerId);
    const run = account.run("2024-02-01T00:00:00Z");
    await pause.reached; // the payment has planned 7.77 from the first grant
    const voided = await server.rest("POST", `/credits/${first.id}/void`, { token: account.token });
    expect(voided.status).toBe(201);
    expect(voided.body.entry).toMatchObject({ amount: -30, balanceAfterEntry: 10 });
    pause.release();

    expect((await run).invoicesCreated).toBe(1);
    // 40.00 − 30.00 voided = 10.00; the backup pays 7.77: 2.23 left.
    const ledger = await account.ledger();
    expect(ledger.map((entry) => [entry.type, entry.amount, entry.balanceAfterEntry, entry.grantId])).toEqual([
      ["Grant", 30, 30, first.id],
      ["Grant", 10, 40, backup.id],
      ["Void", -30, 10, first.id],
      ["Usage", -7.77, 2.23, backup.id],
    ]);
    const [invoice] = await account.invoices(contract.id);
    expect(invoice.revenueBreakdown).toMatchObject({ subtotal: 7.77, creditsUsed: 7.77, total: 0 });
  });
});
