import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingAccount, TIERED_PACKAGED_FLAT } from "../../server/test/support/billing.js";
// Renamed: the harness's `use…` helpers are vitest set-up, not React hooks (which the linter takes them for here).
import { useTestServer as testServerOfThisFile } from "../../server/test/support/harness.js";
import { ADMIN_TOKEN } from "../../server/test/support/server.js";
import { FAST, type Receiver, startReceiver } from "../../server/test/support/webhook-receiver.js";
import { browserOfThisFile, expectAccessible } from "./support/browser.js";
import { open, press, typeFields } from "./support/keyboard.js";

/**
 * The README's picture of the customer page, taken by this test; written only when asked (`CONSOLE_SCREENSHOT=1 pnpm
 * test console`), since its ids and dates change on every run and would dirty every working tree.
 */
const SCREENSHOT = process.env.CONSOLE_SCREENSHOT
  ? join(import.meta.dirname, "..", "..", "..", "docs", "console.png")
  : join(tmpdir(), `console-${process.pid}.png`);

/** The overview's picture in docs/, written only when asked, as the customer page's (see SCREENSHOT). */
const OVERVIEW_SCREENSHOT = process.env.CONSOLE_SCREENSHOT
  ? join(import.meta.dirname, "..", "..", "..", "docs", "console-overview.png")
  : join(tmpdir(), `console-overview-${process.pid}.png`);

/** The invoice page's picture, and its PDF's first page (drawn by poppler's pdftoppm), written only when asked. */
const INVOICE_SCREENSHOT = process.env.CONSOLE_SCREENSHOT
  ? join(import.meta.dirname, "..", "..", "..", "docs", "console-invoice.png")
  : join(tmpdir(), `console-invoice-${process.pid}.png`);
const PDF_PICTURE = join(import.meta.dirname, "..", "..", "..", "docs", "invoice-pdf");

const server = testServerOfThisFile({ webhooks: FAST });
const browser = browserOfThisFile(server);
let receiver: Receiver;
let account: Awaited<ReturnType<typeof billingAccount>>;
let readToken: string;
let invoiceId: string;

/**
 * One customer billed for January 2024, worked out by hand:
 * - API calls, GRADUATED on 1000 + 500 = 1500 units: 1000 × 0.01 = 10.00, then 500 × 0.005 + 2.00 = 4.50 → 14.50;
 * - Storage, PACKAGE on 25 GB in packages of 10 at 5.00: ⌈2.5⌉ = 3 packages → 15.00;
 * - Platform, FLAT 49.99, its price including 10 % tax (its own rate): 49.99 × 10 / 110 = 4.5445… → 4.54 included;
 * subtotal 14.50 + 15.00 + 49.99 = 79.49; VAT 20 % on the other lines: 2.90 + 3.00 = 5.90 added;
 * a grant of 20.00 pays 20.00: total 79.49 + 5.90 − 20.00 = 65.39; a payment of 10.00: 55.39 due.
 */
const EXPECTED = {
  subtotal: 79.49,
  tax: 5.9,
  taxInclusive: 4.54,
  creditsUsed: 20,
  total: 65.39,
  amountPaid: 10,
  amountDue: 55.39,
};
const [calls, storage, platform] = TIERED_PACKAGED_FLAT;

beforeAll(async () => {
  // Every delivery fails (500), so that there is a failed delivery to resend.
  receiver = await startReceiver(() => 500);
  account = await billingAccount(server, { name: "Acme Analytics", externalId: "acme-42", aliases: ["acme-eu"] });
  await account.post("/webhook-endpoints", { url: receiver.url, eventTypes: ["invoice.finalized"] }, 201);
  await account.post("/tax-rates", { code: "VAT20", name: "VAT", rate: 20 }, 201);
  await account.post("/tax-rates", { code: "INCL10", name: "Sales tax", rate: 10, inclusive: true }, 201);
  await account.post("/meters", { key: "calls", eventName: "api_call", aggregation: "SUM", valueProperty: "n" }, 201);
  await account.measure("calls", "2024-01-10", 1000);
  await account.measure("calls", "2024-01-11", 500);
  await account.measure("gb", "2024-01-20", 25);
  await account.post("/events", {
    events: [
      { name: "api_call", timestamp: "2024-01-10T09:00:00Z", customerAlias: "acme-eu", ref: "e1", data: { n: "3" } },
    ],
  });
  await account.grant(20);
  const contract = await account.contract({
    name: "Growth plan",
    startDate: "2024-01-01T00:00:00Z",
    endDate: "2024-02-01T00:00:00Z",
    taxRateCodes: ["VAT20"],
    products: [calls, storage, { ...platform, taxRateCodes: ["INCL10"] }],
  });
  await account.run("2024-02-01T00:00:00Z");
  const [invoice] = await account.invoices(contract.id);
  invoiceId = invoice.id;
  await account.post(`/invoices/${invoiceId}/payments`, { amount: 10, paymentMethod: "wire" }, 201);
  const token = await server.rest("POST", `/admin/accounts/${account.accountId}/tokens`, {
    token: ADMIN_TOKEN,
    body: { scope: "read" },
  });
  readToken = token.body.token;
});

afterAll(async () => {
  await receiver?.close();
});

const cellsOf = (page: Page, table: string) =>
  page.locator(`${table} tr`).evaluateAll((rows) =>
    rows.map((row) =>
      // biome-ignore lint/performance/useDomNodeTextContent: innerText keeps the line break between two tiers
      [...row.querySelectorAll("th, td")].map((cell) => (cell as HTMLElement).innerText.trim()),
    ),
  );

describe("the console in a browser", () => {
  it("shows a bad token's error: the API's message and its requestId", async () => {
    const page = await browser.context.newPage();
    const requested: string[] = [];
    page.on("request", (request) => requested.push(request.url()));
    await page.goto(`${server.url}/console`);
    await expectAccessible(page);
    // By keyboard: the token field, then Enter.
    await page.getByLabel("API token").focus();
    await page.keyboard.type("not-a-token");
    await page.keyboard.press("Enter");
    const alert = page.getByRole("alert");
    await alert.waitFor();
    const direct = await server.rest("GET", "/customers", { token: "not-a-token" });
    expect(direct.status).toBe(401);
    await expect(alert.textContent()).resolves.toContain(direct.body.message);
    expect(await alert.textContent()).toMatch(/UNAUTHORIZED · requestId \S+/);
    // Offline: nothing but this server was asked for anything.
    expect(requested.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
    await page.close();
  });

  it("lands on the overview: owed by age, overdue invoices, revenue; then every invoice, filtered", async () => {
    const page = await browser.signedIn(account.token);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    // INV-000001 (issued Feb 1, 2024, net 30) owes 65.39 − 10.00 paid = 55.39, years past due: all of it over 90 days.
    const owed = page.getByRole("table", { name: "Who owes what, in USD" });
    await owed.getByRole("link", { name: "Acme Analytics" }).waitFor();
    expect(await cellsOf(page, "table:has(caption:text('Who owes what')) tbody")).toEqual([
      ["Acme Analytics", "$0.00", "$0.00", "$0.00", "$0.00", "$55.39", "$55.39"],
    ]);
    const overdue = page.getByRole("region", { name: "Overdue invoices" });
    await overdue.getByRole("link", { name: "INV-000001" }).waitFor();
    await expect(overdue.textContent()).resolves.toContain("$55.39");
    // Twelve months of revenue, this one last; nothing was billed in them (the invoice is of January 2024).
    await open(page, "The months as a table");
    const months = await cellsOf(page, "table:has(caption:text('Revenue by month')) tbody");
    expect(months).toHaveLength(12);
    expect(months.at(-1)?.[0]).toBe(new Date().toISOString().slice(0, 7));
    // Collected this month: the 10.00 paid by wire today (dated now), nothing refunded.
    const revenue = page.getByRole("region", { name: "Revenue, last 12 months" });
    await revenue.getByText("collected this month").waitFor();
    await expect(revenue.textContent()).resolves.toContain("$10.00 collected this month · $0.00 refunded · $10.00 net");
    // MRR: the Growth plan is autoRenewContract (the default) but was entered after its term ended (2024-02-01), so
    // it did not renew: it expired then (its status reads Expired) and counts no MRR in these 12 months; its usage
    // counts only within 62 days of its last invoiced cycle (January 2024): nothing, and no movement.
    await open(page, "MRR and its movements as a table");
    const mrr = await cellsOf(page, "table:has(caption:text('MRR by month')) tbody");
    expect(mrr).toHaveLength(12);
    expect(mrr.map(([, value, ...movements]) => [value, ...movements])).toEqual(
      Array(12).fill(["$0.00", "$0.00", "$0.00", "$0.00", "$0.00", "$0.00"]),
    );
    // A currency the API does not know: its message under the field.
    await page.getByLabel("Currency of the reports").fill("XYZ");
    await press(page.getByRole("button", { name: "Show" }));
    await page.locator("#overview-currency-issue").waitFor();
    await page.getByLabel("Currency of the reports").fill("USD");
    await press(page.getByRole("button", { name: "Show" }));
    await owed.waitFor();
    await expectAccessible(page);
    await page.screenshot({ path: OVERVIEW_SCREENSHOT, fullPage: true });

    await press(overdue.getByRole("link", { name: /Every overdue invoice/ }));
    await page.getByRole("heading", { name: "Invoices" }).waitFor();
    await expect(page.getByLabel("Overdue only").isChecked()).resolves.toBe(true);
    const rows = () => cellsOf(page, "table:has(caption:text('Invoices')) tbody");
    await expect.poll(async () => (await rows()).map((row) => row[0])).toEqual(["INV-000001"]);
    // Paid in part: "Partially paid", 55.39 still due.
    expect((await rows())[0]?.slice(4)).toEqual(["FINALIZED, overdue", "Partially paid", "$65.39", "$55.39"]);
    await page.getByLabel("Payment").selectOption({ label: "Paid" });
    await page.getByText("No invoice matches.").waitFor();
    await page.getByLabel("Payment").selectOption({ label: "Any" });
    // Issued Feb 1, 2024: within [2024-02-01, 2024-02-02), not from 2024-02-02 on (by keyboard: Enter submits).
    await page.getByLabel("Overdue only").uncheck();
    await page.getByLabel("Issued from").fill("2024-02-02");
    await page.getByLabel("Issued from").press("Enter");
    await page.getByText("No invoice matches.").waitFor();
    await page.getByLabel("Issued from").fill("2024-02-01");
    await page.getByLabel("Issued before").fill("2024-02-02");
    await page.getByLabel("Issued before").press("Enter");
    await expect.poll(async () => (await rows()).map((row) => row[0])).toEqual(["INV-000001"]);
    const download = page.waitForEvent("download");
    await press(page.getByRole("link", { name: "Download this page as CSV" }));
    const csv = await readFile(await (await download).path(), "utf8");
    expect(csv.split("\r\n")[0]).toBe(
      "\uFEFFnumber,id,customerId,status,billingStatus,overdue,issuedAt,dueDate,currency,total,amountDue",
    );
    const invoiceRow =
      /^INV-000001,\w+,\w+,FINALIZED,PartiallyPaid,true,2024-02-01T00:00:00.000Z,[^,]+,USD,65.39,55.39$/;
    expect(csv.split("\r\n")[1]).toMatch(invoiceRow);
    await expectAccessible(page);
    await page.close();
  });

  it("finds a customer by externalId or alias and shows its contracts, invoices, credits and daily usage", async () => {
    const page = await browser.signedIn(account.token);
    await press(page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Customers" }));
    await page.getByRole("link", { name: "Acme Analytics" }).waitFor();
    await expectAccessible(page);
    const search = page.getByLabel("Find a customer by exact name, id, externalId or alias");
    await search.fill("acme-eu");
    await press(page.getByRole("button", { name: "Find" }));
    await page.getByRole("table", { name: "Customers matching “acme-eu”" }).getByRole("link").waitFor();
    await search.fill("acme-42");
    await press(page.getByRole("button", { name: "Find" }));
    await press(page.getByRole("table", { name: "Customers matching “acme-42”" }).getByRole("link"));

    await page.getByRole("heading", { name: "Acme Analytics" }).waitFor();
    expect(page.url()).toBe(`${server.url}/console/customers/${account.customerId}`);
    await page.getByRole("cell", { name: "Growth plan", exact: true }).waitFor();
    // Expired at its end (entered after it: no renewal), as its MRR (none) counts it.
    const contractRow = await cellsOf(page, "table:has(th:text('Deal terms')) tbody");
    expect(contractRow[0]?.slice(0, 4)).toEqual(["Growth plan", "Expired", "2024-01-01", "2024-02-01"]);
    await page.getByRole("region", { name: "Invoices" }).getByRole("link", { name: "INV-000001" }).waitFor();
    // Its own MRR (GET /reports/mrr?customerId=), in the currency of its contracts.
    await page.getByRole("region", { name: "Recurring revenue (MRR) in USD" }).getByText("ARR").waitFor();
    // The grant of 20.00 was used up by the invoice: 0 left, and the ledger shows the grant and its use.
    await page.getByText("No grant has money left.").waitFor();
    // The ledger loads on its own: polled until it shows.
    const ledger = async () =>
      (await cellsOf(page, "table:has(caption:text('Ledger')) tbody")).map(([, type, amount]) => [type, amount]);
    await expect.poll(ledger).toEqual([
      ["Grant", "$20.00"],
      ["Usage", "-$20.00"],
    ]);

    await page.getByLabel("From", { exact: true }).fill("2024-01-01");
    await page.getByLabel("Until (excluded)").fill("2024-02-01");
    // 31 days of January, one point each; the measurements of the 10th (replacing its event) and the 11th.
    const usage = "section[aria-labelledby='usage-heading']";
    await expect.poll(() => page.locator(`${usage} .recharts-line-dot`).count(), { timeout: 15_000 }).toBe(31);
    await expectAccessible(page);
    // No focus ring in the README's picture.
    await page.getByLabel("Until (excluded)").blur();
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await open(page, "The days as a table");
    const days = await cellsOf(page, `${usage} details tbody`);
    expect(days).toHaveLength(31);
    expect(days.filter(([, value]) => value !== "0")).toEqual([
      ["2024-01-10", "1,000"],
      ["2024-01-11", "500"],
    ]);

    const events = await account.trpc().events.query.query({
      startTime: "2024-01-01T00:00:00Z",
      endTime: "2024-02-01T00:00:00Z",
    });
    const eventId = events.events[0]!.id;
    const explained = await account.trpc().events.explain.query({ eventId });
    await page.getByLabel("Event id").fill(eventId);
    await press(page.getByRole("button", { name: "Explain" }));
    const explanation = page.locator(".explanation");
    await explanation.waitFor();
    // The event names the customer by its alias; its day, Jan 10, has a measurement, which replaces the day's events.
    expect(explained.attribution).toEqual({
      customerId: account.customerId,
      meters: [{ key: "calls", counted: false, reason: "DAY_SET_BY_MEASUREMENT" }],
    });
    await expect(explanation.textContent()).resolves.toContain(account.customerId);
    await expect(explanation.textContent()).resolves.toContain(
      "calls: not counted: a measurement sets that day's usage",
    );
    await page.close();
  });

  it("shows the invoice's lines, tax, credits and payments as the API has them, worked out by hand", async () => {
    const invoice = (await server.rest("GET", `/invoices/${invoiceId}`, { token: account.token })).body.invoice;
    expect(invoice.revenueBreakdown).toMatchObject({
      subtotal: EXPECTED.subtotal,
      tax: EXPECTED.tax,
      taxInclusive: EXPECTED.taxInclusive,
      creditsUsed: EXPECTED.creditsUsed,
      total: EXPECTED.total,
    });
    expect(invoice).toMatchObject({ amountPaid: EXPECTED.amountPaid, amountDue: EXPECTED.amountDue });

    const page = await browser.signedIn(account.token);
    await page.goto(`${server.url}/console/customers/${account.customerId}`);
    // The Invoices panel's link (the Live panel above it lists the latest invoices too).
    await press(page.getByRole("region", { name: "Invoices" }).getByRole("link", { name: "INV-000001" }));
    await page.getByRole("heading", { name: /INV-000001/ }).waitFor();
    expect(page.url()).toBe(`${server.url}/console/invoices/${invoiceId}`);
    const totals = Object.fromEntries(await cellsOf(page, "table.totals tbody"));
    expect(totals).toEqual({
      Subtotal: "$79.49",
      Overage: "$0.00",
      Discount: "$0.00",
      "VAT 20%": "$5.90",
      "Sales tax 10% (included)": "$4.54",
      Tax: "$5.90",
      "Tax included": "$4.54",
      "Credits used": "-$20.00",
      Total: "$65.39",
      Paid: "-$10.00",
      Credited: "$0.00",
      "Amount due": "$55.39",
    });
    const lines = await cellsOf(page, "table.lines tbody");
    expect(lines.map(([name, how, tax, amount]) => [name?.split("\n")[0], how, tax, amount])).toEqual([
      [
        "API calls",
        "1,000 × $0.01 (up to 1,000) = $10.00\n500 × $0.005 + $2.00 flat (up to ∞) = $4.50",
        "$2.90",
        "$14.50",
      ],
      ["Storage", "3 packages of 10 × $5.00", "$3.00", "$15.00"],
      ["Platform", "1 × $49.99", "$0.00\n$4.54 included", "$49.99"],
    ]);
    await page.getByRole("cell", { name: "wire" }).waitFor();
    // The header says whose it is, when it was issued, what is owed and in which payment state.
    const facts = Object.fromEntries(
      // The header's facts come first; the Collection panel has its own list below.
      await page
        .locator("dl.facts")
        .first()
        .evaluate((list) =>
          [...list.querySelectorAll("dt")].map((term) => [term.textContent, term.nextElementSibling?.textContent]),
        ),
    );
    expect(facts).toMatchObject({ Customer: "Acme Analytics", Issued: "2024-02-01", Due: "2024-03-02" });
    await expect(page.getByRole("heading", { name: /INV-000001/ }).textContent()).resolves.toContain("Partially paid");
    await expect(page.locator("p.figures").textContent()).resolves.toBe("$55.39 due on 2024-03-02 · $65.39 total");
    await expectAccessible(page);
    await page.screenshot({ path: INVOICE_SCREENSHOT, fullPage: true });
    if (process.env.CONSOLE_SCREENSHOT) {
      const pdfFile = join(tmpdir(), `invoice-${process.pid}.pdf`);
      const response = await fetch(`${server.url}/invoices/${invoiceId}/pdf`, {
        headers: { authorization: `Bearer ${account.token}` },
      });
      await writeFile(pdfFile, Buffer.from(await response.arrayBuffer()));
      execFileSync("pdftoppm", ["-png", "-r", "80", "-singlefile", pdfFile, PDF_PICTURE]);
    }
    // The PDF needs the token, so the console fetches it and opens it from memory.
    const [pdf] = await Promise.all([
      browser.context.waitForEvent("page"),
      press(page.getByRole("button", { name: "Open PDF" })),
    ]);
    expect(pdf.url()).toMatch(/^blob:/);
    await pdf.close();
    await page.close();
  });

  it("resends a failed delivery: the endpoint gets the same message again", async () => {
    // The receiver answers 500: the first attempt and its two retries fail.
    await expect
      .poll(
        async () => {
          const endpoints = await account.trpc().webhookEndpoints.list.query({});
          const endpointId = endpoints.endpoints[0]!.id;
          const { deliveries } = await account.trpc().webhookEndpoints.deliveries.query({ endpointId });
          return deliveries[0]?.status;
        },
        { timeout: 20_000 },
      )
      .toBe("FAILED");
    const before = receiver.received.length;
    const page = await browser.signedIn(account.token);
    await press(page.getByRole("link", { name: "Webhooks" }));
    const row = page.getByRole("region", { name: "Deliveries" }).getByRole("row", { name: /invoice\.finalized/ });
    await expect(row.textContent()).resolves.toContain("HTTP 500");
    await expectAccessible(page);
    await press(row.getByRole("button", { name: /Resend/ }));
    await page.getByText("is queued again").waitFor();
    await receiver.waitFor((received) => received.length > before);
    const first = receiver.received[0]!.headers["webhook-id"];
    expect(receiver.received.at(-1)!.headers["webhook-id"]).toBe(first);
    await page.close();
  });

  it("lists the plans and shows a plan: its terms, versions with their contracts, and subscribers", async () => {
    const catalog = await billingAccount(server, { name: "Pro Co" });
    const pro = (price: number) => [{ displayName: "Platform", pricing: { type: "FLAT", price } }];
    await catalog.post("/plans", { key: "pro", name: "Pro", currency: "USD", products: pro(49) }, 201);
    await catalog.contract({ name: "Pro contract", startDate: "2024-01-01T00:00:00Z", planId: "pro" });
    await catalog.post("/plans/pro/versions", { products: pro(59) }, 201);
    const page = await browser.signedIn(catalog.token);
    await press(page.getByRole("link", { name: "Plans" }));
    await page.getByRole("link", { name: "pro" }).waitFor();
    await expectAccessible(page);
    expect((await cellsOf(page, "table"))[1]).toEqual([
      "pro",
      "Pro",
      "ACTIVE",
      "2",
      "Platform: FLAT $59.00",
      expect.any(String),
    ]);
    await press(page.getByRole("link", { name: "pro" }));
    await page.getByRole("heading", { name: "Pro (pro)" }).waitFor();
    await page.getByText("Pro contract").waitFor();
    await expectAccessible(page);
    // Version 1 has the one contract, version 2 (current) none yet.
    const versions = await cellsOf(page, "#versions-heading + table");
    expect(versions.map((row) => [row[0], row[2]])).toEqual([
      ["Version", "Contracts"],
      ["1", "1"],
      ["2", "0"],
    ]);
    await page.screenshot({ path: join(tmpdir(), "console-plan.png"), fullPage: true });
    await page.close();
  });

  it("lets a read token see everything and change nothing, saying why", async () => {
    const page = await browser.signedIn(readToken);
    await page.getByText("Your token has the read scope").waitFor();
    await page.goto(`${server.url}/console/invoices/${invoiceId}`);
    await page.getByRole("heading", { name: /INV-000001/ }).waitFor();
    // Paid on, so not voidable; a payment could still be recorded, but not with this token.
    const recordPayment = page.getByRole("button", { name: "Record payment" });
    await expect(recordPayment.isDisabled()).resolves.toBe(true);
    await expect(recordPayment.getAttribute("title")).resolves.toContain("read scope");
    await expect(page.getByRole("button", { name: "Void" }).count()).resolves.toBe(0);
    await expect(page.getByRole("button", { name: "Open PDF" }).isEnabled()).resolves.toBe(true);
    await press(page.getByRole("link", { name: "Webhooks" }));
    await expect(
      page
        .getByRole("button", { name: /Resend/ })
        .first()
        .isDisabled(),
    ).resolves.toBe(true);
    await press(page.getByRole("link", { name: "Billing runs" }));
    await expect(page.getByRole("button", { name: "Run now" }).isDisabled()).resolves.toBe(true);
    await expectAccessible(page);
    // And the API agrees: the read token's change is refused.
    const refused = await server.rest("POST", `/invoices/${invoiceId}/void`, { token: readToken, body: {} });
    expect(refused.status).toBe(403);
    await page.close();
  });

  it("lets a finance token record payments and run billing, and change no configuration, saying why", async () => {
    const { body } = await server.rest("POST", `/admin/accounts/${account.accountId}/tokens`, {
      token: ADMIN_TOKEN,
      body: { scope: "finance" },
    });
    const page = await browser.signedIn(body.token);
    await page.getByText("Your token has the finance scope").waitFor();
    await page.getByText("Finance token").waitFor();
    await page.goto(`${server.url}/console/invoices/${invoiceId}`);
    await page.getByRole("heading", { name: /INV-000001/ }).waitFor();
    await page.getByLabel(/Payment received/).fill("1");
    const recordPayment = page.getByRole("button", { name: "Record payment" });
    await expect(recordPayment.isEnabled()).resolves.toBe(true);
    await expect(recordPayment.getAttribute("title")).resolves.toBe(null);
    await press(page.getByRole("link", { name: "Webhooks" }));
    const resend = page.getByRole("button", { name: /Resend/ }).first();
    await expect(resend.isDisabled()).resolves.toBe(true);
    await expect(resend.getAttribute("title")).resolves.toContain("finance scope");
    await press(page.getByRole("link", { name: "Billing runs" }));
    await expect(page.getByRole("button", { name: "Run now" }).isEnabled()).resolves.toBe(true);
    await expectAccessible(page);
    await page.close();
  });

  // Last: it changes the invoice the tests above read.
  it("by keyboard: a customer, a grant, a credit note, a meter, a run as of a moment; refusals by field", async () => {
    const page = await browser.signedIn(account.token);
    await press(page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Customers" }));
    await open(page, "New customer");
    // The API's refusal shows on the field it names.
    await press(page.getByRole("button", { name: "Create customer" }));
    const name = page.getByLabel("Name (unique in the account)");
    await page.locator("#customer-name-issue").waitFor();
    await expect(name.getAttribute("aria-invalid")).resolves.toBe("true");
    await typeFields(page, name, ["Console Made Co"]);
    await typeFields(page, page.getByLabel("External id (optional)"), ["console-1"]);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Console Made Co" }).waitFor();
    const made = await server.rest("GET", "/customers/console-1", { token: account.token });
    expect(made.body.customer.name).toBe("Console Made Co");
    // Edited from its page: a bad email is refused on its field; then what was typed is stored (PATCH).
    await open(page, "Edit customer");
    await typeFields(page, page.getByLabel("Tax id (optional)"), ["GB123456789"]);
    await typeFields(page, page.getByLabel("Billing email"), ["not an email"]);
    await press(page.getByRole("button", { name: "Save customer" }));
    await page.locator("#edit-customer-email-issue").waitFor();
    await typeFields(page, page.getByLabel("Billing email"), ["ap@console.test"]);
    await typeFields(page, page.getByLabel("City", { exact: true }), ["Leeds"]);
    await typeFields(page, page.getByLabel("Payment terms (days)"), ["14"]);
    await press(page.getByRole("button", { name: "Save customer" }));
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    const edited = (await server.rest("GET", "/customers/console-1", { token: account.token })).body.customer;
    expect([edited.taxId, edited.contacts, edited.address, edited.netTermsDays]).toEqual([
      "GB123456789",
      [{ email: "ap@console.test" }],
      { city: "Leeds" },
      14,
    ]);

    await open(page, "Grant credits");
    await typeFields(page, page.getByLabel("Amount"), ["12.5"]);
    await press(page.getByRole("button", { name: "Grant", exact: true }));
    await page.locator("p.balances").getByText("$12.50").waitFor();
    await expectAccessible(page);

    // 55.39 due on the invoice; 5.39 taken off it leaves 50.00 (worked out by hand).
    await page.goto(`${server.url}/console/invoices/${invoiceId}`);
    await typeFields(page, page.getByLabel("Amount (USD)"), ["5.39"]);
    await press(page.getByRole("button", { name: "Issue credit note" }));
    await page.getByRole("cell", { name: "Taken off what is owed" }).waitFor();
    await expect
      .poll(async () => Object.fromEntries(await cellsOf(page, "table.totals tbody"))["Amount due"])
      .toBe("$50.00");
    await expectAccessible(page);

    await press(page.getByRole("link", { name: "Meters" }));
    await open(page, "New meter");
    await typeFields(page, page.getByLabel("Key (products name it as their catalogProductId)"), ["console-tokens"]);
    await typeFields(page, page.getByLabel("Events named"), ["llm_call"]);
    await page.getByLabel("Usage of a day").selectOption("SUM");
    await press(page.getByRole("button", { name: "Create meter" }));
    // SUM reads a value: the API names the field, and the form shows it there.
    await expect(page.locator("#meter-value-issue").textContent()).resolves.toBe("required for SUM");
    await typeFields(page, page.getByLabel("Value read from each event's data (not for Count)"), ["tokens"]);
    await press(page.getByRole("button", { name: "Create meter" }));
    await page.getByRole("cell", { name: "console-tokens" }).waitFor();
    await expectAccessible(page);

    await press(page.getByRole("link", { name: "Billing runs" }));
    await typeFields(page, page.getByLabel("As of (ISO date-time; empty: now)"), ["not a moment"]);
    await press(page.getByRole("button", { name: "Run as of then" }));
    await page.locator("#run-at-issue").waitFor();
    await page.close();
  });
});
