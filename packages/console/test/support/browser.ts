import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { inspectMachine, planChromium } from "../../../server/test/support/chromium.js";

/**
 * Debian's chromium, found (or installed) as the server suite's API reference test finds it: the console's `test`
 * script runs the same pre-test step first.
 */
export async function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const machine = inspectMachine();
  const step = planChromium(machine);
  if (step.kind === "unavailable") throw new Error(step.message);
  if (step.kind === "install") {
    throw new Error(`${machine.chromium} is missing: \`pnpm test\` installs it before the tests run`);
  }
  const userDataDir = await mkdtemp(join(tmpdir(), "billing-console-chromium-"));
  // A persistent context: Playwright takes a fresh profile directory only this way.
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: machine.chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"],
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The file's browser, launched in its `beforeAll` and closed in its `afterAll`: its `context`, and `signedIn`, a fresh
 * tab (its own session storage) signed in with a token at `server`'s console, submitted with Enter (`byKeyboard`) or
 * the Sign in button.
 */
export function browserOfThisFile(server: { url: string }, { byKeyboard = false } = {}) {
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  const context = () => {
    if (!browser) throw new Error("the browser is launched in beforeAll: use it inside tests");
    return browser.context;
  };
  return {
    get context() {
      return context();
    },
    async signedIn(token: string): Promise<Page> {
      const page = await context().newPage();
      await page.goto(`${server.url}/console`);
      await page.getByLabel("API token").fill(token);
      if (byKeyboard) await page.keyboard.press("Enter");
      else await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("navigation", { name: "Sections" }).waitFor();
      return page;
    },
  };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * axe-core over the page as it stands: no serious or critical violation. Evaluated through the debugging protocol,
 * so the page's own Content-Security-Policy (scripts from the server only) stays on.
 */
export async function expectAccessible(page: Page) {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const { violations } = await (
      window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }
    ).axe.run();
    return violations.map(({ id, impact, nodes }) => ({
      id,
      impact,
      nodes: nodes.map((node) => node.target.join(" ")),
    }));
  });
  const serious = violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
  expect(serious, `axe on ${page.url()}`).toEqual([]);
}

interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: { target: string[] }[];
}
