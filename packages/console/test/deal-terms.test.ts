import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingAccount, monthly } from "../../server/test/support/billing.js";
// Renamed: the harness's `use…` helpers are vitest set-up, not React hooks (which the linter takes them for here).
import { useTestServer as testServerOfThisFile } from "../../server/test/support/harness.js";
import { expectAccessible, launchBrowser } from "./support/browser.js";

/**
 * Deal terms in the console (issue 44): coupons made, applied and archived, a contract's seats changed and billed, a
 * recurring grant made and stopped; every figure worked out by hand and checked against the API.
 */
const server = testServerOfThisFile();
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let account: Awaited<ReturnType<typeof billingAccount>>;
let contractId: string;

beforeAll(async () => {
  account = await billingAccount(server, { name: "Seat Co" });
  const contract = await account.contract({
    name: "Team plan",
    startDate: "2024-04-01T00:00:00Z",
    products: [{ displayName: "Seats", scheduling: monthly(1), pricing: { type: "PER_SEAT", price: 10 }, seats: 25 }],
  });
  contractId = contract.id;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

async function signedIn(): Promise<Page> {
  const page = await browser.context.newPage();
  await page.goto(`${server.url}/console`);
  await page.getByLabel("API token").fill(account.token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Sections" }).waitFor();
  return page;
}

const cellsOf = (page: Page, table: string) =>
  page.locator(`${table} tbody tr`).evaluateAll((rows) =>
    rows.map((row) =>
      // biome-ignore lint/performance/useDomNodeTextContent: innerText puts a space between a cell's text and button
      [...row.querySelectorAll("th, td")].map((cell) => (cell as HTMLElement).innerText.trim()),
    ),
  );

describe("deal terms in the console", () => {
  it("creates a coupon (a refusal by field first), applies it to a contract once, then archives it", async () => {
    const page = await signedIn();
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Coupons" }).click();
    await page.getByText("No coupons yet").waitFor();
    await page.getByText("New coupon").click();
    await page.getByLabel("Code").fill("SPRING20");
    await page.getByLabel("Discount", { exact: true }).selectOption("AMOUNT");
    await page.getByLabel("Value (percent, or amount)").fill("20");
    await page.getByRole("button", { name: "Create coupon" }).click();
    // An AMOUNT coupon needs its currency: the API names the field, the form shows its message there.
    await expect(page.locator("#coupon-currency-issue").textContent()).resolves.toBe(
      "required with an AMOUNT discount",
    );
    await page.getByLabel("Discount", { exact: true }).selectOption("PERCENT");
    await page.getByLabel("Applies").selectOption("CYCLES");
    await page.getByLabel("Cycles").fill("3");
    await page.getByLabel("Redemptions at most (optional)").fill("1");
    await page.getByRole("button", { name: "Create coupon" }).click();
    await page.getByRole("cell", { name: "SPRING20", exact: true }).waitFor();
    expect((await cellsOf(page, "table:has(caption:text('Coupons a contract'))"))[0]?.slice(0, 4)).toEqual([
      "SPRING20",
      "20 % off",
      "3 cycles",
      "1",
    ]);
    await expectAccessible(page);

    await page.goto(`${server.url}/console/customers/${account.customerId}`);
    await page.getByText("Deal changes: Team plan").click();
    await page.getByText("No coupon applied.").waitFor();
    await page.getByLabel("Coupon code").fill("SPRING20");
    await page.getByRole("button", { name: "Apply coupon" }).click();
    await page.getByRole("table", { name: "Coupons applied" }).getByRole("cell", { name: "SPRING20" }).waitFor();
    // Applied once: a second time is the API's 409, shown with its reason.
    await page.getByLabel("Coupon code").fill("SPRING20");
    await page.getByRole("button", { name: "Apply coupon" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toContain("CONFLICT");
    const applied = await server.rest("GET", `/contracts/${contractId}/coupons`, { token: account.token });
    expect(applied.body.redemptions.map((redemption: any) => [redemption.code, redemption.duration])).toEqual([
      ["SPRING20", { cycles: 3 }],
    ]);

    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Coupons" }).click();
    await page.getByRole("button", { name: "Archive SPRING20" }).click();
    await page.getByText("archived", { exact: true }).waitFor();
    const listed = await server.rest("GET", "/coupons", { token: account.token });
    expect(listed.body.coupons[0].archivedAt).not.toBeNull();
    await page.close();
  });

  it("changes a contract's seats from a day: the schedule shows them and April bills 250.00", async () => {
    const page = await signedIn();
    await page.goto(`${server.url}/console/customers/${account.customerId}`);
    await page.getByText("Deal changes: Team plan").click();
    const seats = page.getByRole("form", { name: "Change seats of Team plan" });
    // A day before the contract's start: the API refuses it by field.
    await seats.getByLabel("Seats").fill("30");
    await seats.getByLabel("From (UTC day)").fill("2024-03-01");
    await seats.getByRole("button", { name: "Change seats" }).click();
    await page.locator(`#seats-from-${contractId}-issue`).waitFor();
    await seats.getByLabel("From (UTC day)").fill("2024-04-11");
    await seats.getByRole("button", { name: "Change seats" }).click();
    await page.getByRole("cell", { name: "30", exact: true }).waitFor();
    await seats.getByLabel("Seats").fill("20");
    await seats.getByLabel("From (UTC day)").fill("2024-04-21");
    await seats.getByRole("button", { name: "Change seats" }).click();
    await page.getByRole("cell", { name: "20", exact: true }).waitFor();
    const schedule = "table:has(caption:text('Seats, from'))";
    expect((await cellsOf(page, schedule)).map(([product, quantity, from]) => [product, quantity, from])).toEqual([
      ["Seats", "25", "2024-04-01"],
      ["Seats", "30", "2024-04-11"],
      ["Seats", "20", "2024-04-21"],
    ]);
    await expectAccessible(page);
    await account.run("2024-05-01T00:00:00Z");
    const [april] = await account.invoices(contractId);
    // 25 × 10 × 10/30 + 30 × 10 × 10/30 + 20 × 10 × 10/30 = 83.333… + 100 + 66.666… = 250.00 (rounded once).
    expect(april.amount).toBe(250);
    await page.close();
  });

  it("amends the contract's commitment and discount from May 1: May bills 160.00 + a 140.00 true-up", async () => {
    const page = await signedIn();
    await page.goto(`${server.url}/console/customers/${account.customerId}`);
    await page.getByText("Deal changes: Team plan").click();
    const form = page.getByRole("form", { name: "Deal terms of Team plan" });
    await form.getByLabel("Minimum commitment (empty: none)").fill("300");
    await form.getByLabel("Discount value (empty: none)").fill("20");
    // No day: the API requires one, and names it.
    await form.getByRole("button", { name: "Amend deal terms" }).click();
    await page.locator(`#deal-from-${contractId}-issue`).waitFor();
    await form.getByLabel("Deal terms from (UTC day)").fill("2024-05-01");
    await form.getByRole("button", { name: "Amend deal terms" }).click();
    await form.getByText("Deal terms amended.").waitFor();
    await page.getByRole("cell", { name: "minimum $300.00 a cycle · Seats: 25 seats · 1 discount" }).waitFor();
    await expectAccessible(page);
    await account.run("2024-06-01T00:00:00Z");
    const [, may] = await account.invoices(contractId);
    // May: 20 seats × 10.00 = 200.00, 20 % off → 160.00; the commitment of 300.00 a cycle adds 300.00 − 160.00 =
    // 140.00 ("Minimum commitment"): 300.00.
    expect(
      may.lineItems.map((line: any) => [line.name, line.revenueBreakdown.subtotal, line.revenueBreakdown.discount]),
    ).toEqual([
      ["Seats", 200, 40],
      ["Minimum commitment", 140, 0],
    ]);
    expect(may.amount).toBe(300);
    await page.close();
  });

  it("shows a plan's deal terms and the credits its contracts are granted, and a contract's", async () => {
    const tokens = {
      displayName: "Tokens",
      catalogProductId: "tokens",
      pricing: { type: "PER_UNIT", price: 0.002 },
      minimum: 100,
      maximum: 500,
    };
    const creditGrants = [
      { amount: 500, recurrence: { every: { unit: "MONTH", value: 1 }, rollover: { maxAmount: 200 } } },
    ];
    await account.post("/plans", { key: "deal", name: "Deal", currency: "USD", products: [tokens], creditGrants }, 201);
    // Starting in 2027 (after any run of this test): no period of its grants is issued while the tests below run.
    await account.contract({ name: "Deal contract", startDate: "2027-01-01T00:00:00Z", planId: "deal" });
    const page = await signedIn();
    await page.goto(`${server.url}/console/plans/deal`);
    await page.getByRole("heading", { name: "Deal (deal)" }).waitFor();
    expect((await cellsOf(page, "#terms-heading + table"))[0]?.[3]).toBe("≥ $100.00 · ≤ $500.00");
    await expect(page.getByRole("list", { name: "Credits each contract is granted" }).textContent()).resolves.toBe(
      "$500.00 credits every month, rolling over up to $200.00",
    );
    await expectAccessible(page);
    await page.goto(`${server.url}/console/customers/${account.customerId}`);
    await page
      .getByRole("cell", { name: "Tokens ≥ $100.00 · Tokens ≤ $500.00 · $500.00 credits every month, rolling" })
      .waitFor();
    await page.close();
  });

  it("grants 500 a month rolling over up to 200, then stops it: the periods started stay", async () => {
    const page = await signedIn();
    await page.goto(`${server.url}/console/customers/${account.customerId}`);
    await page.getByText("Grant credits").click();
    await page.getByLabel("Amount").fill("500");
    await page.getByLabel("Recurs every few months").check();
    await page.getByLabel("Rolls over at most (empty: none)").fill("200");
    await page.getByRole("button", { name: "Grant", exact: true }).click();
    await page.locator("p.balances").getByText("$500.00").waitFor();
    const ledger = "table:has(caption:text('Ledger'))";
    await expect
      .poll(async () => (await cellsOf(page, ledger)).map(([, type, amount, , recurring]) => [type, amount, recurring]))
      .toEqual([["Grant", "$500.00", "period 1 Stop recurring"]]);
    await page.getByRole("button", { name: "Stop recurring" }).click();
    await page.getByText("stopped after period 1").waitFor();
    await expectAccessible(page);
    // The API agrees: the cancellation is recorded (a repeat answers the same), and period 1's 500.00 stays.
    const [entry] = (await server.rest("GET", `/credits?customerId=${account.customerId}`, { token: account.token }))
      .body.entries;
    const again = await server.rest("POST", `/credits/${entry.id}/recurrence/cancel`, { token: account.token });
    expect(again.status).toBe(200);
    expect(again.body.recurringGrant).toMatchObject({ lastPeriod: 1, issuedThrough: 1, amount: 500 });
    const balance = await server.rest("GET", `/credits/balance?customerId=${account.customerId}`, {
      token: account.token,
    });
    expect(balance.body.balances).toEqual([expect.objectContaining({ currency: "USD", balance: 500 })]);
    await page.close();
  });
});
