import { ObjectId } from "mongodb";
import { describe, expect, it } from "vitest";
import { asMicros } from "../src/domain/money/micros.js";
import { type BillingAccount, billingAccount } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { testHooks } from "./support/hooks.js";

/**
 * The credits repository: one insert is the whole movement (forced at the `credits.append` hook point, between a
 * movement's reading of the ledger and its insert), and the debits the billing engine writes.
 */
const control = testHooks();
const server = useTestServer({ hooks: control.hooks });
const credits = () => server.service.repositories.credits;
const balanceMicros = async (accountId: string, customerId: string) =>
  (await credits().balance(accountId, customerId)).balanceMicros;

describe("crash safety and races: one insert is the whole movement", () => {
  it("a failure before the insert leaves no trace; the ledger goes on from the real balance", async () => {
    const { accountId, customerId, grant, ledger, token } = await billingAccount(server);
    await grant(1.5);
    control.fail("credits.append", customerId, 1);
    const failed = await server.rest("POST", "/credits", { token, body: { customerId, amount: 9, type: "Grant" } });
    expect(failed.status).toBe(500);
    expect(await balanceMicros(accountId, customerId)).toBe(1_500_000);
    expect(await ledger()).toHaveLength(1);

    const written = (await grant(2.25, customerId, { invoiceId: "inv-crash" })).entry;
    const entries = await ledger();
    expect(entries.map((entry) => [entry.id, entry.amount, entry.balanceAfterEntry])).toEqual([
      [expect.any(String), 1.5, 1.5],
      [written.id, 2.25, 3.75],
    ]);
    expect(entries[1].invoiceId).toBe("inv-crash");
    expect((await grant(0.25)).entry.balanceAfterEntry).toBe(4);
    expect(await balanceMicros(accountId, customerId)).toBe(4_000_000);
  });

  it("an entry computed before another movement landed is not written; the movement starts over", async () => {
    const { customerId, grant, ledger } = await billingAccount(server);
    await grant(1);
    const pause = control.pauseOnce("credits.append", customerId);
    const stale = grant(5);
    await pause.reached; // the grant of 5.00 has read the balance of 1.00 and computed 6.00
    expect((await grant(2)).entry.balanceAfterEntry).toBe(3);
    pause.release();
    // Its place taken, it reads again: 1.00 + 2.00 + 5.00.
    expect((await stale).entry.balanceAfterEntry).toBe(8);
    expect((await ledger()).map((entry) => [entry.amount, entry.balanceAfterEntry])).toEqual([
      [1, 1],
      [2, 3],
      [5, 8],
    ]);
  });
});

describe("usage entries (written by the billing engine)", () => {
  /** An invoice issued now: every grant made so far (effective now by default) may pay it. */
  const paying =
    ({ accountId, customerId }: BillingAccount) =>
    (invoiceId: string, maxMicros: number, contractId?: string) =>
      credits().payInvoice(accountId, customerId, {
        invoiceId,
        maxMicros: asMicros(maxMicros),
        issuedAt: new Date(),
        currency: "USD",
        ...(contractId && { contractId }),
      });
  /** The micro-units a payment took. */
  const payer = (account: BillingAccount) => async (invoiceId: string, maxMicros: number, contractId?: string) =>
    (await paying(account)(invoiceId, maxMicros, contractId)).spentMicros;

  it("debit at most the balance, with negative amounts, and nothing at zero", async () => {
    const account = await billingAccount(server);
    const pay = payer(account);
    expect(await pay("inv-0", 1_000_000)).toBeUndefined();
    await account.grant(10);
    expect(await pay("inv-1", 4_000_000, "ct-1")).toBe(4_000_000);
    expect(await pay("inv-2", 9_000_000)).toBe(6_000_000);
    expect(await pay("inv-3", 1)).toBeUndefined();
    const entries = await account.ledger();
    expect(
      entries.map((entry: { type: string; amount: number; balanceAfterEntry: number }) => [
        entry.type,
        entry.amount,
        entry.balanceAfterEntry,
      ]),
    ).toEqual([
      ["Grant", 10, 10],
      ["Usage", -4, 6],
      ["Usage", -6, 0],
    ]);
    expect(entries[1]).toMatchObject({ invoiceId: "inv-1", contractId: "ct-1", grantId: entries[0].id });
  });

  it("concurrent usage never takes the balance below zero", async () => {
    const account = await billingAccount(server);
    const pay = payer(account);
    await account.grant(10);
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => pay(`inv-${i}`, 4_000_000)));
    expect(results.filter((micros) => micros !== undefined).sort()).toEqual([2_000_000, 4_000_000, 4_000_000]);
    expect(await balanceMicros(account.accountId, account.customerId)).toBe(0);
    expect((await account.ledger()).at(-1).balanceAfterEntry).toBe(0);
  });

  it("debits an invoice once, however often and however concurrently it is paid", async () => {
    const account = await billingAccount(server);
    const pay = payer(account);
    await account.grant(100);
    expect(await pay("inv-once", 30_000_000)).toBe(30_000_000);
    expect(await pay("inv-once", 30_000_000)).toBe(30_000_000);
    const concurrent = await Promise.all(Array.from({ length: 12 }, () => pay("inv-race", 5_000_000)));
    expect(concurrent).toEqual(Array.from({ length: 12 }, () => 5_000_000));
    expect((await account.ledger()).map((entry: { amount: number }) => entry.amount)).toEqual([100, -30, -5]);
    expect(await balanceMicros(account.accountId, account.customerId)).toBe(65_000_000);
  });
});

describe("a payment whose caller opened its pending payment itself (a billing batch's: unpaidBefore)", () => {
  const pay = ({ accountId, customerId }: BillingAccount, invoiceId: string, maxMicros: number, unpaidBefore = true) =>
    credits().payInvoice(
      accountId,
      customerId,
      { invoiceId, maxMicros: asMicros(maxMicros), issuedAt: new Date(), currency: "USD" },
      undefined,
      unpaidBefore,
    );

  it("is still made once: the invoice's id is its first entry's, which the ledger holds once", async () => {
    const account = await billingAccount(server);
    await account.grant(100);
    const [paidFirst, raced] = [new ObjectId().toHexString(), new ObjectId().toHexString()];
    // Paid by a caller that looks first (30.00), then by one that skips its first look: its insert is refused by
    // the id, the next round looks and answers the first payment.
    expect((await pay(account, paidFirst, 30_000_000, false)).spentMicros).toBe(30_000_000);
    expect((await pay(account, paidFirst, 30_000_000)).spentMicros).toBe(30_000_000);
    // Twelve at once that all skip their first look: one debit of 5.00.
    const concurrent = await Promise.all(Array.from({ length: 12 }, () => pay(account, raced, 5_000_000)));
    expect(concurrent.map(({ spentMicros }) => spentMicros)).toEqual(Array.from({ length: 12 }, () => 5_000_000));
    const ledger = await account.ledger();
    // 100.00 − 30.00 − 5.00 = 65.00.
    expect(ledger.map((entry) => [entry.type, entry.amount, entry.invoiceId ?? null])).toEqual([
      ["Grant", 100, null],
      ["Usage", -30, paidFirst],
      ["Usage", -5, raced],
    ]);
    expect([ledger[1].id, ledger[2].id]).toEqual([paidFirst, raced]);
    expect(await balanceMicros(account.accountId, account.customerId)).toBe(65_000_000);
  });
});

describe("a payment's last entry (the billing engine's credit.depleted decision)", () => {
  const pay = ({ accountId, customerId }: BillingAccount, invoiceId: string, maxMicros: number) =>
    credits().payInvoice(accountId, customerId, {
      invoiceId,
      maxMicros: asMicros(maxMicros),
      issuedAt: new Date(),
      currency: "USD",
    });

  it("is the ledger's last entry for the invoice, across grants, also when the payment was made before", async () => {
    const account = await billingAccount(server);
    await account.grant(3);
    await account.grant(4);
    // 5.00 from grants of 3.00 and 4.00, oldest first: −3.00 (balance 4.00), then −2.00 (balance 2.00).
    const paid = await pay(account, "inv-two-parts", 5_000_000);
    const ledger = await account.ledger();
    expect(ledger.map((entry) => [entry.type, entry.amount, entry.balanceAfterEntry])).toEqual([
      ["Grant", 3, 3],
      ["Grant", 4, 7],
      ["Usage", -3, 4],
      ["Usage", -2, 2],
    ]);
    expect(paid).toEqual({ spentMicros: 5_000_000, lastEntry: ledger[3], written: [ledger[2], ledger[3]] });
    // Paid before: the same payment and last entry, nothing written.
    expect(await pay(account, "inv-two-parts", 5_000_000)).toEqual({ ...paid, written: [] });
    expect(await pay(account, "inv-nothing", 0)).toEqual({ spentMicros: undefined, lastEntry: undefined, written: [] });
  });

  it("is the same entry for every concurrent payer of the invoice, whichever of them wrote its parts", async () => {
    const account = await billingAccount(server);
    await account.grant(1);
    await account.grant(2);
    await account.grant(3);
    // 6.00 empties the three grants: −1.00 (5.00), −2.00 (3.00), −3.00 (0).
    const payments = await Promise.all(Array.from({ length: 8 }, () => pay(account, "inv-race", 6_000_000)));
    const ledger = await account.ledger();
    expect(ledger.slice(3).map((entry) => [entry.type, entry.amount, entry.balanceAfterEntry])).toEqual([
      ["Usage", -1, 5],
      ["Usage", -2, 3],
      ["Usage", -3, 0],
    ]);
    for (const payment of payments) expect(payment).toMatchObject({ spentMicros: 6_000_000, lastEntry: ledger[5] });
    // Each part was written by exactly one of them.
    const written = payments.flatMap((payment) => payment.written.map((entry) => entry.id));
    expect(written.sort()).toEqual(
      ledger
        .slice(3)
        .map((entry) => entry.id)
        .sort(),
    );
  });

  it("is the part written by whoever completed a payment a crash cut in two", async () => {
    const account = await billingAccount(server);
    await account.grant(3);
    await account.grant(2);
    // −3.00 (balance 2.00), then −2.00 (balance 0).
    await pay(account, "inv-cut", 5_000_000);
    // A crash right after the first part: the second was never written.
    const entries = server.service.db.collection("credit_entries");
    expect((await entries.deleteOne({ accountId: account.accountId, seq: 4 })).deletedCount).toBe(1);
    // Settling the ledger, as the customer's next read does first, writes it (and reports it: it empties the balance).
    const { state, written } = await credits().settle(account.accountId, account.customerId);
    expect(state.balanceMicros).toBe(0);
    expect(written).toMatchObject([{ type: "Usage", amount: -2, balanceAfterEntry: 0, invoiceId: "inv-cut" }]);
    // A repeated run finds the payment whole, its last entry being the one that read wrote.
    expect(await pay(account, "inv-cut", 5_000_000)).toEqual({
      spentMicros: 5_000_000,
      lastEntry: written[0],
      written: [],
    });
  });
});
