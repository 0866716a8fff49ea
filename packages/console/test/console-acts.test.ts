import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingAccount } from "../../server/test/support/billing.js";
// Renamed: the harness's `use…` helpers are vitest set-up, not React hooks (which the linter takes them for here).
import { useTestServer as testServerOfThisFile } from "../../server/test/support/harness.js";
import { ADMIN_TOKEN } from "../../server/test/support/server.js";
import { FAST, type Receiver, startReceiver } from "../../server/test/support/webhook-receiver.js";
import { browserOfThisFile, expectAccessible } from "./support/browser.js";
import { confirm, open, press, typeFields } from "./support/keyboard.js";

/**
 * The console's configuration forms driven by keyboard alone (focus, type, Tab, Enter): tax rates, alerts, webhook
 * endpoints, plans and contracts, each refusal of the API on the field it names, each change that cannot be undone
 * asked twice; and what a finance token is not offered. One server and one browser for the file.
 */
const server = testServerOfThisFile({ webhooks: FAST });
const browser = browserOfThisFile(server, { byKeyboard: true });
let receiver: Receiver;
let account: Awaited<ReturnType<typeof billingAccount>>;

beforeAll(async () => {
  // Every delivery fails (500): the overview lists the endpoint as failing.
  receiver = await startReceiver(() => 500);
  account = await billingAccount(server, { name: "Keyboard Co" });
});

afterAll(async () => {
  await receiver?.close();
});

const rest = (method: string, path: string, body?: unknown) =>
  server.rest(method, path, { token: account.token, ...(body !== undefined && { body }) });

describe("the console's forms, by keyboard", () => {
  it("makes, renames and archives a tax rate; the API's refusal shows on its field", async () => {
    const page = await browser.signedIn(account.token);
    await press(page.getByRole("link", { name: "Tax rates" }));
    await open(page, "New tax rate");
    // A rate of 150 %: refused by the API, its message under the rate.
    await typeFields(page, page.getByLabel("Code (contracts name it)"), ["VAT20", "VAT", "150"]);
    await press(page.getByRole("button", { name: "Create tax rate" }));
    const rateIssue = page.locator("#tax-rate-issue");
    await rateIssue.waitFor();
    await expect(page.getByLabel("Rate (percent)").getAttribute("aria-invalid")).resolves.toBe("true");
    await typeFields(page, page.getByLabel("Rate (percent)"), ["20"]);
    await press(page.getByRole("button", { name: "Create tax rate" }));
    await page.getByRole("cell", { name: "VAT20", exact: true }).waitFor();
    await expectAccessible(page);

    await press(page.getByRole("button", { name: "Rename VAT20" }));
    await typeFields(page, page.getByLabel("New name of VAT20"), ["Value added tax"]);
    await page.keyboard.press("Enter");
    await page.getByRole("cell", { name: "Value added tax", exact: true }).waitFor();
    // Archiving is asked twice: Escape takes it back, the confirmation does it.
    await press(page.getByRole("button", { name: "Archive VAT20" }));
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Archive VAT20" }).waitFor();
    await confirm(page, page.getByRole("button", { name: "Archive VAT20" }), "Archive for good");
    await page.getByText("Archived", { exact: true }).waitFor();
    const { body } = await rest("GET", "/tax-rates");
    expect(
      body.taxRates.map((rate: { name: string; archivedAt: string | null }) => [rate.name, !!rate.archivedAt]),
    ).toEqual([["Value added tax", true]]);
    await page.close();
  });

  it("makes and deletes a usage alert; thresholds out of order are refused on their field", async () => {
    await rest("POST", "/meters", { key: "calls", eventName: "api_call", aggregation: "COUNT" });
    const page = await browser.signedIn(account.token);
    await press(page.getByRole("link", { name: "Alerts" }));
    await open(page, "New alert");
    await typeFields(page, page.getByLabel(/^Customer/), [account.customerId, "calls", "5000, 1000"]);
    await page.keyboard.press("Enter");
    await expect(page.locator("#alert-thresholds-issue").textContent()).resolves.toContain(
      "must be greater than the previous threshold",
    );
    await typeFields(page, page.getByLabel(/^Thresholds/), ["1000, 5000"]);
    await page.keyboard.press("Enter");
    await page.getByRole("cell", { name: "1,000, 5,000", exact: true }).waitFor();
    await page.getByRole("link", { name: "Keyboard Co" }).waitFor();
    await expectAccessible(page);
    await confirm(page, page.getByRole("button", { name: "Delete the alert on calls" }), "Delete for good");
    await page.getByText("No alerts yet").waitFor();
    expect((await rest("GET", "/alerts")).body.alerts).toEqual([]);
    await page.close();
  });

  it("registers, edits, disables, rotates and deletes a webhook endpoint, its secret shown once", async () => {
    const page = await browser.signedIn(account.token);
    await press(page.getByRole("link", { name: "Webhooks" }));
    await open(page, "New webhook endpoint");
    await typeFields(page, page.getByLabel("URL (https)"), ["not a url", "invoice.finalized"]);
    await page.keyboard.press("Enter");
    await page.locator("#endpoint-new-url-issue").waitFor();
    await typeFields(page, page.getByLabel("URL (https)"), [receiver.url, "invoice.finalised"]);
    await page.keyboard.press("Enter");
    // A type the API does not know: named by its index.
    await expect(page.locator("#endpoint-new-events-issue").textContent()).resolves.toMatch(/^eventTypes\.0: /);
    await typeFields(page, page.getByLabel(/^Event types/), [""]);
    await page.keyboard.press("Enter");
    const created = page.getByRole("status").filter({ hasText: "is registered" });
    await expect(created.textContent()).resolves.toMatch(/shown only this once: whsec_\S+/);
    const [endpoint] = (await rest("GET", "/webhook-endpoints")).body.endpoints;
    expect(endpoint).toMatchObject({ url: receiver.url, eventTypes: [], status: "ENABLED" });
    await expectAccessible(page);

    await press(page.getByRole("button", { name: `Edit ${receiver.url}` }));
    await typeFields(page, page.locator(`#endpoint-${endpoint.id}-url`), [null, null, "Finance's receiver"]);
    await press(page.getByRole("button", { name: "Save endpoint" }));
    await page.getByText("Finance's receiver").waitFor();
    await press(page.getByRole("button", { name: `Disable ${receiver.url}` }));
    await page.getByRole("button", { name: `Enable ${receiver.url}` }).waitFor();
    expect((await rest("GET", `/webhook-endpoints/${endpoint.id}`)).body.endpoint).toMatchObject({
      status: "DISABLED",
      description: "Finance's receiver",
    });
    await press(page.getByRole("button", { name: `Enable ${receiver.url}` }));
    await page.getByRole("button", { name: `Disable ${receiver.url}` }).waitFor();
    await confirm(page, page.getByRole("button", { name: `Rotate secret of ${receiver.url}` }), "Rotate now");
    await expect(page.getByText("The secret is rotated.").textContent()).resolves.toMatch(/whsec_\S+/);
    await expectAccessible(page);
    await page.close();
  });

  it("makes a plan and its second version, a contract from it, amends, pauses and terminates it", async () => {
    const page = await browser.signedIn(account.token);
    await press(page.getByRole("link", { name: "Plans" }));
    await open(page, "New plan");
    // Products that are not JSON: refused before any call, on the field.
    await typeFields(page, page.getByLabel("Key (contracts name the plan by it)"), ["pro", "Pro", "USD", "[{"]);
    await press(page.getByRole("button", { name: "Create plan" }));
    await expect(page.locator("#plan-products-issue").textContent()).resolves.toMatch(/^not JSON/);
    // A FLAT price without its price: the API's message names products.0.pricing.
    const noPrice = '[{ "displayName": "Platform", "pricing": { "type": "FLAT" } }]';
    await typeFields(page, page.getByLabel("Products"), [noPrice]);
    await press(page.getByRole("button", { name: "Create plan" }));
    await expect(page.locator("#plan-products-issue").textContent()).resolves.toContain("products.0.pricing");
    const platform = (price: number) =>
      `[{ "displayName": "Platform", "pricing": { "type": "FLAT", "price": ${price} } }]`;
    await typeFields(page, page.getByLabel("Products"), [platform(49)]);
    await press(page.getByRole("button", { name: "Create plan" }));
    await page.getByRole("heading", { name: "Pro (pro)" }).waitFor();
    await open(page, "New version");
    await typeFields(page, page.getByRole("form", { name: "New version" }).getByLabel("Products"), [platform(59)]);
    await press(page.getByRole("button", { name: "Add version" }));
    await page.getByRole("region", { name: "Version 2 (current), ACTIVE" }).waitFor();
    await expectAccessible(page);

    // A contract of the customer on version 1 (49.00), with 10 % off the platform: 44.10 a month.
    await page.goto(`${server.url}/console/customers/${account.customerId}`);
    await open(page, "New contract");
    await typeFields(page, page.getByLabel("Name", { exact: true }), ["Pro for Keyboard Co", "2026-13-01"]);
    await press(page.getByRole("button", { name: "Create contract" }));
    await page.locator("#contract-start-issue").waitFor();
    await typeFields(page, page.getByLabel("Starts"), ["2025-01-01", null, null, "pro", "1"]);
    await page.keyboard.press("Tab");
    await page.keyboard.type('[{ "product": "Platform", "discountPercent": 10 }]');
    await press(page.getByRole("button", { name: "Create contract" }));
    await page.getByRole("cell", { name: "Pro for Keyboard Co", exact: true }).waitFor();
    const [contract] = (await rest("GET", `/contracts?customerId=${account.customerId}`)).body.contracts;
    expect(contract).toMatchObject({ plan: { key: "pro", version: 1 }, startDate: "2025-01-01T00:00:00.000Z" });
    expect(contract.overrides).toEqual([{ product: "Platform", discountPercent: 10 }]);

    await press(page.getByRole("button", { name: "Change Pro for Keyboard Co" }));
    const changes = page.getByRole("region", { name: "Change Pro for Keyboard Co" });
    // Version 2 from a day no invoice covers (nothing was billed yet).
    await typeFields(page, changes.getByLabel("Effective from"), ["2025-03-01", "2"]);
    await press(changes.getByRole("button", { name: "Amend" }));
    await changes.getByText("Amended: terms version 2.").waitFor();
    expect((await rest("GET", `/contracts/${contract.id}`)).body.contract.plan).toMatchObject({ version: 2 });

    await typeFields(page, changes.getByLabel("From (empty: today)"), ["2025-06-01"]);
    await confirm(page, changes.getByRole("button", { name: "Pause contract" }), "Pause from then");
    await expect
      .poll(async () => (await rest("GET", `/contracts/${contract.id}`)).body.contract.inactivePeriods)
      .toEqual([{ from: "2025-06-01T00:00:00.000Z" }]);
    await changes.getByRole("button", { name: "Resume contract" }).waitFor();
    await expectAccessible(page);
    await page.screenshot({ path: join(tmpdir(), "console-acts-contract.png"), fullPage: true });

    await typeFields(page, changes.getByLabel("At (empty: now)"), ["2099-01-01", "Moved to annual billing"]);
    await confirm(page, changes.getByRole("button", { name: "Terminate contract" }), "Terminate for good");
    await expect
      .poll(async () => (await rest("GET", `/contracts/${contract.id}`)).body.contract)
      .toMatchObject({ terminationReason: "Moved to annual billing", terminationAt: "2099-01-01T00:00:00.000Z" });

    await press(page.getByRole("link", { name: "Plans" }));
    await press(page.getByRole("link", { name: "pro" }));
    await confirm(page, page.getByRole("button", { name: "Archive plan" }), "Archive for good");
    await page.getByText("Archived: no new contract may take it.").waitFor();
    await page.close();
  });

  it("simulates a plan's new price over its contracts' past, then migrates them to it and shows progress", async () => {
    const platform = (price: number) => [{ displayName: "Platform", pricing: { type: "FLAT", price } }];
    await account.post("/plans", { key: "growth", name: "Growth", currency: "USD", products: platform(49) }, 201);
    const contract = await account.contract({
      name: "Growth contract",
      startDate: "2025-01-01T00:00:00Z",
      // Auto-renewing (the default) and running: it renews there, and its MRR counts on past it.
      endDate: "2099-01-01T00:00:00Z",
      planId: "growth",
    });
    await account.post("/plans/growth/versions", { products: platform(59) }, 201);
    const page = await browser.signedIn(account.token);
    await page.goto(`${server.url}/console/plans/growth`);
    await open(page, "Simulate new prices");
    const simulation = page.getByRole("form", { name: "Simulate new prices" });
    // Not a day: the API's refusal under the field.
    await typeFields(page, simulation.getByLabel("From (YYYY-MM-DD)"), ["2025-01-01", "2025-13-01"]);
    await press(simulation.getByRole("button", { name: "Simulate" }));
    await page.locator("#simulation-to-issue").waitFor();
    // The candidate is version 2's terms (the field starts from them). January and February 2025, two monthly cycles:
    // 2 × 49.00 = 98.00 billed by version 1, 2 × 59.00 = 118.00 by the candidate, a change of +20.00.
    await typeFields(page, simulation.getByLabel("To, excluded (YYYY-MM-DD, not after today)"), ["2025-03-01"]);
    await press(simulation.getByRole("button", { name: "Simulate" }));
    const outcome = page.getByText(/a change of/);
    await outcome.waitFor();
    await expect(outcome.textContent()).resolves.toContain(
      "$98.00 billed under the current terms, $118.00 under the candidate terms, a change of +$20.00",
    );
    await page.getByRole("cell", { name: "+$20.00" }).waitFor();

    await open(page, "Migrate contracts to a version");
    const migration = page.getByRole("form", { name: "Migrate contracts" });
    // Version 0 does not exist: refused on its field, after the confirmation.
    await typeFields(page, migration.getByLabel("From versions (ALL, or e.g. 1, 2)"), ["ALL", "0"]);
    await confirm(page, migration.getByRole("button", { name: "Migrate contracts" }), "Migrate for good");
    await page.locator("#migration-to-issue").waitFor();
    await typeFields(page, migration.getByLabel("To version"), ["2"]);
    await confirm(page, migration.getByRole("button", { name: "Migrate contracts" }), "Migrate for good");
    const progress = page.getByRole("status", { name: "Migration progress" });
    await progress.getByText(/^Completed .*: 1 of 1 contracts moved to version 2, 0 left where they were\.$/).waitFor();
    expect((await rest("GET", `/contracts/${contract.id}`)).body.contract.plan).toMatchObject({ version: 2 });
    await expectAccessible(page);
    await page.screenshot({ path: join(tmpdir(), "console-acts-plan-migration.png"), fullPage: true });
    // The customer list's MRR, at this month's end: the 49.00 of version 1 until the next cycle moves it to 59.00
    // (the earlier test's contract is paused, 0).
    await press(page.getByRole("link", { name: "Customers" }));
    const row = page.getByRole("row", { name: /Keyboard Co/ });
    await expect.poll(() => row.locator("td").last().textContent()).toBe("$49.00");
    await press(row.getByRole("link", { name: "Keyboard Co" }));
    await page.getByRole("cell", { name: "2099-01-01, then renews" }).waitFor();
    await page.close();
  });

  it("shows the failing endpoint and the last runs on the overview; finance is offered no configuration", async () => {
    // The endpoint (every type, answering 500) gets the run's webhooks and fails them.
    await rest("POST", "/billing-runs", { at: "2025-02-01T00:00:00Z" });
    const page = await browser.signedIn(account.token);
    const failing = page.getByRole("region", { name: "Failing webhook endpoints" });
    await failing.getByText(receiver.url).waitFor({ timeout: 20_000 });
    await expect(failing.textContent()).resolves.toContain("HTTP 500");
    const runs = page.getByRole("region", { name: "Last billing runs" });
    await runs.getByText(/token \S+ \(write\)/).waitFor();
    await expectAccessible(page);
    await page.screenshot({ path: join(tmpdir(), "console-acts-overview.png"), fullPage: true });
    await page.close();

    const { body } = await server.rest("POST", `/admin/accounts/${account.accountId}/tokens`, {
      token: ADMIN_TOKEN,
      body: { scope: "finance" },
    });
    const finance = await browser.signedIn(body.token);
    for (const [section, button] of [
      ["Tax rates", "Create tax rate"],
      ["Alerts", "Create alert"],
      ["Webhooks", "Create endpoint"],
      ["Plans", "Create plan"],
    ]) {
      await press(finance.getByRole("link", { name: section, exact: true }));
      const create = finance.getByRole("button", { name: button, includeHidden: true });
      await expect(create.isDisabled()).resolves.toBe(true);
      await expect(create.getAttribute("title")).resolves.toContain("finance scope");
    }
    await finance.goto(`${server.url}/console/customers/${account.customerId}`);
    await expect(
      finance.getByRole("button", { name: "Create contract", includeHidden: true }).isDisabled(),
    ).resolves.toBe(true);
    // A grant is a finance team's work: offered (no scope reason on it; disabled only until an amount is typed).
    await expect(
      finance.getByRole("button", { name: "Grant", exact: true, includeHidden: true }).getAttribute("title"),
    ).resolves.toBe(null);
    await expectAccessible(finance);
    // A void is a finance team's work too, by keyboard, with its reason: the invoice then shows when and why.
    const [invoice] = (await rest("GET", "/invoices?limit=1")).body.invoices;
    await finance.goto(`${server.url}/console/invoices/${invoice.id}`);
    await press(finance.getByRole("button", { name: "Void", exact: true }));
    await typeFields(finance, finance.getByLabel("Why (kept in the invoice's history)"), ["Sent twice"]);
    await press(finance.getByRole("button", { name: "Void for good" }));
    await finance.getByText("A voided invoice cannot change.").waitFor();
    const voided = finance.locator("dt:text-is('Voided') + dd");
    await expect(voided.textContent()).resolves.toMatch(/^\d{4}-\d{2}-\d{2}: Sent twice$/);
    await expectAccessible(finance);
    await finance.close();
  });
});
