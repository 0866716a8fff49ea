import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { billingAccount, monthly } from "../../server/test/support/billing.js";
// Renamed: the harness's `use…` helpers are vitest set-up, not React hooks (which the linter takes them for here).
import { useTestServer as testServerOfThisFile } from "../../server/test/support/harness.js";
import { ADMIN_TOKEN } from "../../server/test/support/server.js";
import { PAYING_CARD } from "../../server/test/support/stripe-double.js";
import { expectAccessible } from "./support/browser.js";
import { stripeAndBrowserOfThisFile } from "./support/browser-and-stripe.js";
import { confirm, press } from "./support/keyboard.js";

/**
 * The console's collection surface (issue 46) by keyboard alone, checked with axe: the Payments page connects Stripe
 * (a bad key refused on its field; the keys never shown again), shows the webhook URL, disconnects only when asked
 * twice; the invoice page's "Collect now" charges the amount due once; the customer page makes a portal link shown
 * once and revokes every link when asked twice. One server, one Stripe double, one browser. Its picture in docs/ is
 * written only when asked (`CONSOLE_SCREENSHOT=1`).
 */
const SCREENSHOT = process.env.CONSOLE_SCREENSHOT
  ? join(import.meta.dirname, "..", "..", "..", "docs", "console-collection.png")
  : join(tmpdir(), `console-collection-${process.pid}.png`);

const SECRET_KEY = "sk_test_console_0123456789";
const WEBHOOK_SECRET = "whsec_console_0123456789";

const server = testServerOfThisFile();
const started = stripeAndBrowserOfThisFile();

/** Fills a field by keyboard: focused, everything selected, typed over. */
async function typeInto(page: Page, field: Locator, value: string) {
  await field.focus();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.type(value);
}

describe("the console's collection surface, by keyboard", () => {
  it("connects Stripe, collects an invoice, makes and revokes portal links; no serious axe violation", async () => {
    const account = await billingAccount(server, {
      name: "Collect Co",
      paymentProvider: { stripeCustomerId: started.stripe.customer(PAYING_CARD) },
    });
    await server.rest("PATCH", `/admin/accounts/${account.accountId}`, {
      token: ADMIN_TOKEN,
      body: { autoCollect: false },
    });
    const contract = await account.contract({
      startDate: "2026-01-01T00:00:00.000Z",
      products: [{ displayName: "Platform", scheduling: monthly(1), pricing: { type: "FLAT", price: 120 } }],
    });
    await account.run("2026-02-01T00:00:00.000Z");
    const [january] = await account.invoices(contract.id);

    const page = await started.browser.context.newPage();
    await page.goto(`${server.url}/console`);
    await page.getByLabel("API token").fill(account.token);
    await page.keyboard.press("Enter");
    await press(page.getByRole("link", { name: "Payments" }));

    // Not connected: a key that is not a Stripe key is refused on its field.
    await page.getByRole("heading", { name: "Stripe: not connected" }).waitFor();
    await typeInto(page, page.getByLabel("Secret key"), "pk_live_wrong");
    await typeInto(page, page.getByLabel("Webhook signing secret"), WEBHOOK_SECRET);
    await typeInto(page, page.getByLabel("API base (optional)"), started.stripe.url);
    await page.keyboard.press("Enter");
    await expect(page.locator("#stripe-secret-key-issue").textContent()).resolves.toContain("sk_");
    await typeInto(page, page.getByLabel("Secret key"), SECRET_KEY);
    await press(page.getByRole("button", { name: "Connect Stripe" }));
    await page.getByRole("heading", { name: "Stripe: connected" }).waitFor();
    // Shown by its last 4 characters; neither secret anywhere in the page; the webhook URL is the service's.
    await page.getByText("…6789", { exact: true }).waitFor();
    const html = await page.content();
    expect(html).not.toContain(SECRET_KEY);
    expect(html).not.toContain(WEBHOOK_SECRET);
    await expect(page.locator("#stripe-webhook-url").textContent()).resolves.toBe(
      `${server.url}/providers/stripe/webhooks/${account.accountId}`,
    );
    await page.getByRole("button", { name: "Copy webhook URL" }).waitFor();
    await expectAccessible(page);
    // Disconnecting is asked twice: Escape takes it back, the confirmation does it.
    await press(page.getByRole("button", { name: "Disconnect Stripe" }));
    await page.keyboard.press("Escape");
    await confirm(page, page.getByRole("button", { name: "Disconnect Stripe" }), "Disconnect for good");
    await page.getByRole("heading", { name: "Stripe: not connected" }).waitFor();
    expect((await server.rest("GET", "/payment-providers/stripe", { token: account.token })).status).toBe(404);
    await server.rest("PUT", "/payment-providers/stripe", {
      token: account.token,
      body: { secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, apiBase: started.stripe.url },
    });

    // The invoice: 120.00 due, charged once by "Collect now"; then nothing due, the button says why it is disabled.
    await page.goto(`${server.url}/console/invoices/${january.id}`);
    await page.getByRole("heading", { name: "Collection" }).waitFor();
    await page.getByText("Charges $120.00 to the customer's default card.").waitFor();
    await press(page.getByRole("button", { name: "Collect now" }));
    const attempt = page.getByRole("table", { name: "Collection attempt" });
    await attempt.getByRole("cell", { name: "Succeeded" }).waitFor();
    await page.getByText("Nothing is due on this invoice.").waitFor();
    await expect(page.getByRole("button", { name: "Collect now" }).isDisabled()).resolves.toBe(true);
    const { body } = await server.rest("GET", `/invoices/${january.id}/payments`, { token: account.token });
    // One payment of 120.00, its transaction the PaymentIntent shown in the attempt.
    expect(body.payments.map((payment: { amount: number }) => payment.amount)).toEqual([120]);
    await attempt.getByRole("cell", { name: body.payments[0].transactionId }).waitFor();
    await expectAccessible(page);
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // The customer: a portal link shown once; revoking asked twice, after which the link answers 401.
    await page.goto(`${server.url}/console/customers/${account.customerId}`);
    await page.getByRole("heading", { name: "Collection" }).waitFor();
    await press(page.getByRole("button", { name: "Create portal link" }));
    const link = page.getByText(/\/portal\//);
    const url = (await link.textContent()) ?? "";
    expect(url.startsWith(server.url)).toBe(true);
    expect((await fetch(url)).status).toBe(200);
    await expectAccessible(page);
    await confirm(page, page.getByRole("button", { name: "Revoke portal links" }), "Revoke every link");
    await page.getByText(/are revoked\./).waitFor();
    expect(await link.count()).toBe(0);
    expect((await fetch(url)).status).toBe(401);
    await page.close();
  });
});
