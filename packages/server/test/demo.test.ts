import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { useTestServer } from "./support/harness.js";

/** `pnpm demo` (scripts/demo.ts) against a live server, as a newcomer runs it. */
const server = useTestServer();
const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url));

async function demo(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const run = await promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/demo.ts", ...args], {
      cwd: SERVER_DIR,
      timeout: 120_000,
    });
    return { code: 0, ...run };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Micro-dollars to dollars, rounded to cents half up: the service's rule for a line. */
const cents = (micros: number) => Math.floor((micros + 5_000) / 10_000) / 100;

describe("pnpm demo", () => {
  it("fills a fresh account with October's usage of three customers on three price models, and bills it", async () => {
    const { token } = await server.newAccount();
    const run = await demo("--url", server.url, "--token", token, "--month", "2025-10");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const get = async (path: string) => {
      const response = await server.rest("GET", path, { token });
      expect(response.status, path).toBe(200);
      return response.body;
    };

    const { customers } = await get("/customers?limit=10");
    expect(customers.map((customer: { externalId: string }) => customer.externalId)).toEqual([
      "northwind",
      "blue-yonder",
      "contoso",
    ]);
    const { contracts } = await get("/contracts?limit=10");
    const usagePricing = contracts.map((contract: any) => contract.products[0].pricing.type);
    expect(usagePricing).toEqual(["PER_UNIT", "GRADUATED", "VOLUME"]);
    const usage = async (customer: string, meterKey: string) =>
      (await get(`/usage?customerId=${customer}&meterKey=${meterKey}&startDate=2025-10-01&endDate=2025-11-01`)).usage;
    const calls = await usage("northwind", "api-calls");
    const tokens = await usage("blue-yonder", "tokens");
    const storage = await usage("contoso", "storage-gb");
    // Every day of October has usage of each customer.
    for (const meter of [calls, tokens, storage]) expect(meter.days).toHaveLength(31);
    expect(run.stdout).toMatch(/3 customers, 3 meters, \d+ events/);

    const invoiceOf = async (customer: string) => {
      const { invoices } = await get(`/invoices?customerId=${customer}`);
      expect(invoices).toHaveLength(1);
      expect(invoices[0].billingCycle).toEqual({
        startTime: "2025-10-01T00:00:00.000Z",
        endTime: "2025-11-01T00:00:00.000Z",
      });
      return invoices[0].revenueBreakdown;
    };
    // Northwind: 0.01 a call, plus the 99.00 platform fee.
    expect((await invoiceOf("northwind")).total).toBe(cents(calls.value * 10_000) + 99);
    // Blue Yonder, graduated: the first 100,000 tokens at 0.00004, up to 1,000,000 at 0.00002, the rest at 0.00001.
    const t = tokens.value;
    const graduated = Math.min(t, 100_000) * 40 + Math.max(0, Math.min(t, 1_000_000) - 100_000) * 20;
    expect((await invoiceOf("blue-yonder")).total).toBe(cents(graduated + Math.max(0, t - 1_000_000) * 10));
    // Contoso, volume: its peak (100–1000 GB) all at 0.20, plus that tier's 5.00; its 20.00 of credits pay part of it.
    expect(storage.value).toBeGreaterThan(100);
    expect(storage.value).toBeLessThanOrEqual(1000);
    const subtotal = cents(Math.round(storage.value * 10) * 20_000 + 5_000_000);
    const total = (Math.round(subtotal * 100) - 20_00) / 100;
    expect(await invoiceOf("contoso")).toMatchObject({ subtotal, creditsUsed: 20, total });
  });

  it("refuses, with exit code 2 and nothing added, an account that already has customers", async () => {
    const { token } = await server.newAccount();
    expect((await server.rest("POST", "/customers", { token, body: { name: "Existing" } })).status).toBe(201);
    const run = await demo("--url", server.url, "--token", token);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("the demo fills only a fresh account");
    expect((await server.rest("GET", "/customers", { token })).body.total).toBe(1);
    expect((await server.rest("GET", "/meters", { token })).body.meters).toEqual([]);
  });

  it("says how to call it (exit code 2) without a token or with a bad month", async () => {
    expect(await demo("--url", server.url)).toMatchObject({ code: 2, stderr: expect.stringContaining("--token") });
    const badMonth = await demo("--url", server.url, "--token", "bill_x", "--month", "2025-13");
    expect(badMonth).toMatchObject({ code: 2, stderr: expect.stringContaining("--month must be YYYY-MM") });
  });
});
