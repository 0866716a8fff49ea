import { describe, expect, it } from "vitest";
import { billingAccount, committed } from "../../server/test/support/billing.js";
// Renamed: the harness's `use…` helpers are vitest set-up, not React hooks (which the linter takes them for here).
import { useTestServer as testServerOfThisFile } from "../../server/test/support/harness.js";
import { browserOfThisFile, expectAccessible } from "./support/browser.js";
import { press } from "./support/keyboard.js";

/**
 * The billing runs page calling `POST /billing-runs` until `hasMore` is false, on a backlog of more than 100 invoices:
 * its own file (the longest console test, most of it the server billing), beside console.test.ts.
 */
const server = testServerOfThisFile();
const browser = browserOfThisFile(server);

describe("the billing runs page", () => {
  it("runs billing now, calling again until hasMore is false", async () => {
    // A backlog: a contract since January 2018 with no invoice yet, 1 seat × 10.00 billed monthly in arrears. A run
    // now bills every month that has ended, Jan 2018 up to last month: 12 a year since 2018, plus this year's months
    // before this one (e.g. 8 × 12 + 10 = 106 in November 2026). A call makes at most 100 invoices (fewer when its
    // time budget runs out), so more than 100 take at least 2 calls.
    const backlog = await billingAccount(server);
    await backlog.contract({ startDate: "2018-01-01T00:00:00Z", products: [committed(1, 10)] });
    const now = new Date();
    const months = (now.getUTCFullYear() - 2018) * 12 + now.getUTCMonth();
    expect(months).toBeGreaterThan(100);
    const page = await browser.signedIn(backlog.token);
    await press(page.getByRole("link", { name: "Billing runs" }));
    await expectAccessible(page);
    await press(page.getByRole("button", { name: "Run now" }));
    await page.getByRole("heading", { name: "Run finished" }).waitFor({ timeout: 150_000 });
    const fact = (term: string) => page.locator(`dt:text-is("${term}") + dd`).textContent();
    await expect(fact("Invoices created")).resolves.toBe(String(months));
    expect(Number(await fact("Calls"))).toBeGreaterThanOrEqual(2);
    expect(await backlog.allInvoices()).toHaveLength(months);
    // Each call is a run in the audit log: listed under the form, newest first, with the token that ran it.
    const listed = page.getByRole("region", { name: "The last 25 runs" }).getByText(/token \S+ \(write\)/);
    await expect.poll(() => listed.count()).toBe(Number(await fact("Calls")));
    await press(page.getByRole("link", { name: "Meters" }));
    await page.getByText("No meters yet").waitFor();
    await expectAccessible(page);
    await page.close();
  }, 180_000);
});
