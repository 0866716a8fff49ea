import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { billingAccount, monthly, usageProduct } from "../../server/test/support/billing.js";
// Renamed: the harness's `use…` helpers are vitest set-up, not React hooks (which the linter takes them for here).
import { useTestServer as testServerOfThisFile } from "../../server/test/support/harness.js";
import { ADMIN_TOKEN } from "../../server/test/support/server.js";
import { PAYING_CARD } from "../../server/test/support/stripe-double.js";
import { expectAccessible } from "./support/browser.js";
import { stripeAndBrowserOfThisFile } from "./support/browser-and-stripe.js";

/**
 * The customer portal (issue 46), served by the service itself, in Chromium: what a customer sees from the link the
 * account gives it, checked with axe like the console. Its picture in docs/ is written only when asked
 * (`CONSOLE_SCREENSHOT=1`), as the console's.
 */
const SCREENSHOT = process.env.CONSOLE_SCREENSHOT
  ? join(import.meta.dirname, "..", "..", "..", "docs", "portal.png")
  : join(tmpdir(), `portal-${process.pid}.png`);

const server = testServerOfThisFile();
const started = stripeAndBrowserOfThisFile();

describe("the customer portal in a browser", () => {
  it("shows usage, invoices with a Pay button, credit notes and the balance; no serious axe violation", async () => {
    const account = await billingAccount(server, {
      name: "Northwind Traders",
      aliases: ["northwind"],
      paymentProvider: { stripeCustomerId: started.stripe.customer(PAYING_CARD) },
    });
    await server.rest("PUT", "/payment-providers/stripe", {
      token: account.token,
      body: {
        secretKey: "sk_test_double_0123456789",
        webhookSecret: "whsec_portal_0123456789",
        apiBase: started.stripe.url,
      },
    });
    await server.rest("PATCH", `/admin/accounts/${account.accountId}`, {
      token: ADMIN_TOKEN,
      body: { autoCollect: false },
    });
    await account.post("/meters", { key: "api_calls", eventName: "api_call", aggregation: "COUNT" }, 201);
    const contract = await account.contract({
      startDate: "2026-01-01T00:00:00.000Z",
      products: [
        { displayName: "Platform", scheduling: monthly(1), pricing: { type: "FLAT", price: 120 } },
        usageProduct("API calls", "api_calls", { type: "PER_UNIT", price: 0.01 }),
      ],
    });
    await account.run("2026-03-01T00:00:00.000Z");
    const [january, february] = (await account.invoices(contract.id)).sort((a: any, b: any) =>
      a.number.localeCompare(b.number),
    );
    // January paid by wire and 20.00 of it credited back as credits: a note, and a balance of 20.00.
    await account.post(`/invoices/${january.id}/payments`, { amount: 120, paymentMethod: "wire" }, 201);
    await account.post("/credit-notes", { invoiceId: january.id, amount: 20, reason: "OTHER", refund: "CREDITS" }, 201);
    await account.post("/events", {
      events: Array.from({ length: 7 }, (_, n) => ({
        ref: `portal-${n}`,
        name: "api_call",
        timestamp: new Date(Date.now() - 1000).toISOString(),
        customerAlias: "northwind",
      })),
    });
    const session = await account.post(
      `/customers/${account.customerId}/portal-sessions`,
      { returnUrl: "https://app.example.com/billing" },
      201,
    );

    const page = await started.browser.context.newPage();
    const requested: string[] = [];
    page.on("request", (request) => requested.push(request.url()));
    await page.goto(`${server.url}${session.url}`);
    await page.getByRole("heading", { name: "Northwind Traders" }).waitFor();
    await expect(page.getByText("Credit balance:").textContent()).resolves.toBe("Credit balance: 20.00 USD");
    // This month's 7 API calls, no limit; February's 120.00 payable, January's paid.
    const usage = page.getByRole("row", { name: /api_calls/ });
    await expect(usage.getByRole("cell").nth(2).textContent()).resolves.toBe("7");
    const due = page.getByRole("row", { name: new RegExp(february.number) });
    await due.getByRole("button", { name: "Pay 120.00 USD" }).waitFor();
    const paid = page.getByRole("row", { name: new RegExp(january.number) });
    await expect(paid.getByRole("cell").nth(2).textContent()).resolves.toBe("Paid");
    expect(await paid.getByRole("button").count()).toBe(0);
    await page.getByRole("row", { name: /CN-000001/ }).waitFor();
    await expectAccessible(page);
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    // Nothing but this service was asked for anything; no API token in the page.
    expect(requested.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
    expect(await page.content()).not.toContain(account.token);
    await page.close();
  });
});
