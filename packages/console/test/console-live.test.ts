import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { billingAccount } from "../../server/test/support/billing.js";
// Renamed: the harness's `use…` helpers are vitest set-up, not React hooks (which the linter takes them for here).
import { useTestServer as testServerOfThisFile } from "../../server/test/support/harness.js";
import { browserOfThisFile, expectAccessible } from "./support/browser.js";

/**
 * The customer page's live panel (`GET /customers/{customerId}/stream`, read with fetch: the session's bearer token
 * goes in a header, which an EventSource cannot send): usage, balance, open reservations and invoices change on the
 * page as the API changes them, without a reload.
 */
const server = testServerOfThisFile();
const browser = browserOfThisFile(server);

describe("the customer page, live", () => {
  it("shows usage, balance, open reservations and invoices change without a reload", async () => {
    const account = await billingAccount(server, { name: "Live Labs", aliases: ["live-labs"] });
    await account.post("/meters", { key: "tokens", eventName: "llm", aggregation: "SUM", valueProperty: "n" }, 201);
    const scheduling = { duration: { unit: "MONTH", value: 1 }, billingDay: 1 };
    const now = new Date();
    // From the 1st of last month: last month's cycle is billed by a run now (one invoice), this month's is live.
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString();
    await account.contract({
      startDate: lastMonth,
      products: [{ displayName: "LLM", catalogProductId: "tokens", scheduling, commitment: { units: 1000, price: 1 } }],
    });
    await account.grant(25);
    const page = await browser.signedIn(account.token);
    await page.goto(`${server.url}/console/customers/${account.customerId}`);
    const live = page.getByRole("region", { name: "Live" });
    await live.getByText("● Live").waitFor();
    const cell = (row: string, column: number) => live.locator(`tr:has-text("${row}") td`).nth(column);
    await expect.poll(() => cell("tokens", 1).textContent()).toBe("0");
    await expect.poll(() => live.locator('[data-balance="USD"]').textContent()).toBe("$25.00");
    await live.getByText("No open reservation").waitFor();
    const reloads: string[] = [];
    page.on("framenavigated", (frame) => reloads.push(frame.url()));

    // 40 units reserved, 120 used, 5.00 more granted: each shows up (the stream reads every 500 ms).
    const reserved = await account.post(
      `/customers/${account.customerId}/reservations`,
      { meterKey: "tokens", amount: 40, ttlSeconds: 600, ref: "call-1" },
      201,
    );
    const { id } = reserved.reservation;
    await live.getByText(id).waitFor();
    expect(await cell(id, 2).textContent()).toBe("40");
    await account.post("/events", {
      events: [
        { name: "llm", ref: "e1", timestamp: new Date().toISOString(), customerAlias: "live-labs", data: { n: "120" } },
      ],
    });
    await expect.poll(() => cell("tokens", 1).textContent()).toBe("120");
    await account.grant(5);
    await expect.poll(() => live.locator('[data-balance="USD"]').textContent()).toBe("$30.00");
    await expectAccessible(page);
    await page.screenshot({ path: join(tmpdir(), "console-live.png"), fullPage: true });

    // Settled with 12: it leaves the open reservations, and the usage counts the 12 (120 + 12 = 132).
    await account.post(`/reservations/${id}/settle`, { amount: 12 });
    await live.getByText("No open reservation").waitFor();
    await expect.poll(() => cell("tokens", 1).textContent()).toBe("132");

    // Last month's invoice, made by a run now, appears in the panel's invoices.
    await live.getByText("No invoice yet").waitFor();
    await account.run(new Date().toISOString());
    await live.getByRole("heading", { name: "Latest invoices" }).waitFor();
    await expect.poll(() => live.getByText("No invoice yet").count()).toBe(0);
    expect(reloads).toEqual([]);
    await page.close();
  }, 120_000);
});
