import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { chromiumPath, inspectMachine, planChromium } from "./support/chromium.js";
import { useTestServer } from "./support/harness.js";

/** Debian's chromium, found or installed by the suite's pre-test step (support/ensure-chromium.ts). */
const CHROMIUM = chromiumPath();
const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Every path of the spec (docs/spec.md), which the reference page must show. */
const SPEC_PATHS = [
  "/contracts",
  "/contracts/{contractId}",
  "/invoices",
  "/invoices/{invoiceId}",
  "/customers",
  "/customers/name/{name}",
  "/customers/{customerId}",
  "/measurements",
  "/credits",
  "/events",
];

const server = useTestServer();

describe("GET /docs over HTTP", () => {
  it("serves the page without a token, loading scripts only from this server", async () => {
    const response = await fetch(`${server.url}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await response.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, url]) => url);
    expect(sources.length).toBeGreaterThan(0);
    for (const url of sources) expect(url).toMatch(/^\/docs\//);
  });

  it.each([
    ["/docs/swagger-ui-bundle.js", "text/javascript; charset=utf-8"],
    ["/docs/swagger-ui.css", "text/css; charset=utf-8"],
    ["/docs/init.js", "text/javascript; charset=utf-8"],
  ])("serves %s", async (path, contentType) => {
    const response = await fetch(server.url + path);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(contentType);
    expect((await response.text()).length).toBeGreaterThan(50);
  });

  it.each(["/docs/package.json", "/docs/index.js", "/docs/%2e%2e/package.json", "/docs/..%2fpackage.json"])(
    "answers %s with the documented 404: only the listed assets are served",
    async (path) => {
      expectError(await server.rest("GET", path), 404, "NOT_FOUND");
    },
  );
});

/** A page of Debian's chromium, on a fresh profile removed afterwards. */
async function withBrowserPage(use: (page: Page) => Promise<void>) {
  const step = planChromium(inspectMachine());
  if (step.kind === "unavailable") throw new Error(step.message);
  if (step.kind === "install")
    throw new Error(`${CHROMIUM} is missing: \`pnpm test\` installs it before the tests run`);
  const userDataDir = await mkdtemp(join(tmpdir(), "billing-docs-chromium-"));
  // launchPersistentContext, because Playwright takes the fresh profile directory only this way (not as
  // --user-data-dir).
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
  });
  try {
    await use(context.pages()[0] ?? (await context.newPage()));
  } finally {
    await context.close();
    await rm(userDataDir, { recursive: true, force: true });
  }
}

describe("GET /docs in a browser", () => {
  it("renders every path of the spec, with no request leaving the server", async () => {
    await withBrowserPage(async (page) => {
      const requested: string[] = [];
      page.on("request", (request) => requested.push(request.url()));
      const pageErrors: string[] = [];
      page.on("pageerror", (error) => pageErrors.push(error.message));

      await page.goto(`${server.url}/docs`);
      await page.locator(".opblock-summary-path").first().waitFor({ timeout: 20_000 });
      // Swagger UI puts zero-width spaces after slashes so that long paths wrap.
      const shown = (await page.locator(".opblock-summary-path").allInnerTexts()).map((text) =>
        text.replace(/\u200b/g, "").trim(),
      );
      for (const path of SPEC_PATHS) expect(shown, `the page shows ${path}`).toContain(path);
      await expect(page.locator(".info .title").textContent()).resolves.toContain("Usage-based billing API");

      expect(pageErrors).toEqual([]);
      const foreign = requested.filter((url) => !url.startsWith(`${server.url}/`) && !url.startsWith("data:"));
      expect(foreign).toEqual([]);
      expect(requested).toContain(`${server.url}/openapi.json`);
    });
  });

  it("creates a customer, then a contract for it, by 'Try it out' and 'Execute' with the defaults", async () => {
    const { token } = await server.newAccount();
    await withBrowserPage(async (page) => {
      await page.goto(`${server.url}/docs`);
      await page.locator("button.authorize").first().click();
      await page.locator(".auth-container input").fill(token);
      await page.locator(".auth-btn-wrapper button.authorize").click();
      await page.locator(".auth-btn-wrapper button.btn-done").click();

      const execute = async (operation: string) => {
        const block = page.locator(`#operations-${operation}`);
        await block.locator(".opblock-summary").click();
        await block.locator("button.try-out__btn").click();
        // Execute sends what the body editor holds: wait until "Try it out" has put the example in it.
        const body = block.locator("textarea.body-param__text");
        await expect.poll(() => body.inputValue(), { timeout: 20_000 }).not.toBe("");
        await block.locator("button.execute").click();
        const answer = block.locator(".live-responses-table tr.response").first();
        await answer.waitFor({ timeout: 20_000 });
        return {
          status: (await answer.locator(".response-col_status").textContent())?.trim(),
          body: (await answer.locator(".response-col_description").textContent()) ?? "",
        };
      };
      const customer = await execute("customers-customers-create");
      expect(customer.status, customer.body).toBe("201");
      const contract = await execute("contracts-contracts-create");
      expect(contract.status, contract.body).toBe("201");
    });
    const { body } = await server.rest("GET", "/contracts", { token });
    const { body: customers } = await server.rest("GET", "/customers", { token });
    expect(body.contracts).toHaveLength(1);
    expect(customers.customers).toHaveLength(1);
    expect(body.contracts[0].customerId).toBe(customers.customers[0].id);
  });
});
