import { describe, expect, it } from "vitest";
import { billingAccount, committed, runToEnd } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { testHooks } from "./support/hooks.js";
import { startTwinService } from "./support/server.js";

/** Numbers under concurrency and crashes (docs/decisions.md, "Invoice life: numbers"); drafts for 30 days. */
const control = testHooks();
const server = useTestServer({ invoiceDraftMs: 30 * 86_400_000, hooks: control.hooks });

/** `count` drafts of 10.00 (one contract each, January 2024), made by one run at Feb 1. */
async function drafts(count: number) {
  const account = await billingAccount(server);
  for (let i = 0; i < count; i += 1)
    await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 10)] });
  await runToEnd(account, "2024-02-01T00:00:00Z");
  const invoices = await account.allInvoices();
  expect(invoices.map((invoice) => invoice.status)).toEqual(Array(count).fill("DRAFT"));
  return { account, ids: invoices.map((invoice) => invoice.id as string) };
}

const numbers = (count: number) => Array.from({ length: count }, (_, i) => `INV-${String(i + 1).padStart(6, "0")}`);

const finalizeOn = (url: string, token: string, invoiceId: string) =>
  fetch(`${url}/invoices/${invoiceId}/finalize`, { method: "POST", headers: { authorization: `Bearer ${token}` } });

describe("finalizing concurrently", () => {
  // 24, 12 on each instance: each number is still fought over by every draft not yet numbered (a loser reads the
  // sequence again), and the cost grows with the square of the count (50 passed 30 s on a loaded CI machine).
  it("24 drafts finalized at once on two instances take INV-000001 to INV-000024: no gap, no duplicate", async () => {
    const { account, ids } = await drafts(24);
    const twin = await startTwinService(server);
    try {
      const responses = await Promise.all(
        ids.map((id, i) => finalizeOn(i % 2 === 0 ? server.url : twin.url, account.token, id)),
      );
      expect(responses.map((response) => response.status)).toEqual(Array(24).fill(200));
      const answered = await Promise.all(responses.map(async (response) => (await response.json()).invoice.number));
      expect([...answered].sort()).toEqual(numbers(24));
    } finally {
      await twin.close();
    }
    const stored = await account.allInvoices();
    expect(stored.map((invoice) => invoice.number).sort()).toEqual(numbers(24));
    expect(stored.every((invoice) => invoice.status === "FINALIZED")).toBe(true);
  });

  it("one draft finalized twice at once: one 200, one 409, one number; the next draft takes the next", async () => {
    const { account, ids } = await drafts(2);
    const [first, second] = ids as [string, string];
    const statuses = await Promise.all([
      finalizeOn(server.url, account.token, first),
      finalizeOn(server.url, account.token, first),
    ]).then((responses) => responses.map((response) => response.status).sort());
    expect(statuses).toEqual([200, 409]);
    expect((await finalizeOn(server.url, account.token, second)).status).toBe(200);
    expect((await account.allInvoices()).map((invoice) => invoice.number)).toEqual(numbers(2));
  });
});

describe("a finalization that stops part-way", () => {
  it("stopped after the change was logged, before it took effect: the next read completes it, once", async () => {
    const { account, ids } = await drafts(2);
    const [first, second] = ids as [string, string];
    control.fail("invoices.applyChange", first, 1);
    expect((await finalizeOn(server.url, account.token, first)).status).toBe(500);
    const read = await server.rest("GET", `/invoices/${first}`, { token: account.token });
    expect(read.body.invoice).toMatchObject({ status: "FINALIZED", number: "INV-000001" });
    expect((await finalizeOn(server.url, account.token, first)).status).toBe(409);
    expect((await finalizeOn(server.url, account.token, second)).status).toBe(200);
    expect((await account.allInvoices()).map((invoice) => invoice.number)).toEqual(numbers(2));
  });

  it("stopped before its number was claimed: the next run completes it, and no number is skipped", async () => {
    const { account, ids } = await drafts(2);
    const [first, second] = ids as [string, string];
    control.fail("documentNumbers.claim", first, 1);
    expect((await finalizeOn(server.url, account.token, first)).status).toBe(500);
    // The next run (its drafts are re-priced) finds the logged finalization and completes it.
    await account.run("2024-02-02T00:00:00Z");
    const [stored] = await account.allInvoices();
    expect(stored).toMatchObject({ id: first, status: "FINALIZED", number: "INV-000001" });
    expect((await finalizeOn(server.url, account.token, second)).status).toBe(200);
    expect((await account.allInvoices()).map((invoice) => invoice.number)).toEqual(numbers(2));
  });
});
