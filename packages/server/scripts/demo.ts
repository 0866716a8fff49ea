/**
 * `pnpm demo`: fills a fresh account of a running server with a month of usage of three customers on different price
 * models (per unit, graduated, volume), their contracts, a credit grant and the month's invoices, over the REST API,
 * so that /docs, the console and the SDK have something to show.
 *
 *   pnpm demo --token TOKEN [--url URL] [--month YYYY-MM]
 *
 * TOKEN: a write token of the account (BILLING_TOKEN); URL: the server (BILLING_URL, default http://127.0.0.1:3000);
 * the month: the last whole one by default. It refuses (exit 2) an account that already has customers or meters, so
 * it never runs twice on one account; exit 1 when the server refuses a call.
 */
import {
  CUSTOMERS,
  type DemoMonth,
  demoEvents,
  METERS,
  monthEnd,
  monthStart,
  parseMonth,
  previousMonth,
} from "./demo/data.js";

const USAGE = "Usage: pnpm demo --token TOKEN [--url URL] [--month YYYY-MM]";
/** The API's largest event batch. */
const EVENTS_PER_CALL = 1000;
/** The run bills the month once its grace period (BILLING_GRACE_PERIOD, at most 7 days) has passed. */
const LONGEST_GRACE_MS = 7 * 86_400_000;

class UsageError extends Error {}

function parseArgs(args: string[]) {
  const options = {
    token: process.env.BILLING_TOKEN,
    url: process.env.BILLING_URL || "http://127.0.0.1:3000",
    month: previousMonth(new Date()) as DemoMonth,
  };
  for (let index = 0; index < args.length; index += 1) {
    const flag = args[index];
    const value = args[index + 1];
    if (flag === "--") continue;
    if (value === undefined || !["--token", "--url", "--month"].includes(flag ?? "")) {
      throw new UsageError(`unknown argument or missing value: ${flag}`);
    }
    index += 1;
    if (flag === "--token") options.token = value;
    else if (flag === "--url") options.url = value.replace(/\/+$/, "");
    else {
      const month = parseMonth(value);
      if (!month) throw new UsageError(`--month must be YYYY-MM, got ${value}`);
      options.month = month;
    }
  }
  if (!options.token) throw new UsageError("a token is needed: --token TOKEN or BILLING_TOKEN");
  return { ...options, token: options.token };
}

async function main() {
  const { token, url, month } = parseArgs(process.argv.slice(2));
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };

  const [customers, meters] = await Promise.all([
    call<{ total: number }>("GET", "/customers?limit=1"),
    call<{ meters: unknown[] }>("GET", "/meters?limit=1"),
  ]);
  if (customers.total > 0 || meters.meters.length > 0) {
    throw new UsageError(
      "this account already has customers or meters: the demo fills only a fresh account, so it never runs twice " +
        "(make one with `pnpm billing accounts create Demo`)",
    );
  }
  const from = monthStart(month);
  const label = from.toISOString().slice(0, 7);
  console.log(`Filling the account at ${url} with ${label}'s usage of three customers…`);
  for (const meter of METERS) await call<unknown>("POST", "/meters", meter);
  const customerIds: string[] = [];
  for (const { customer, grant } of CUSTOMERS) {
    const { customer: created } = await call<{ customer: { id: string } }>("POST", "/customers", customer);
    if (grant) await call<unknown>("POST", "/credits", { customerId: created.id, ...grant });
    customerIds.push(created.id);
  }
  // The usage goes in before the contracts: a server whose billing scheduler is on may bill a contract as soon as it
  // exists, and an invoice counts only the events stored by then.
  const events = demoEvents(month);
  let stored = 0;
  for (let start = 0; start < events.length; start += EVENTS_PER_CALL) {
    stored += (
      await call<{ stored: number }>("POST", "/events", { events: events.slice(start, start + EVENTS_PER_CALL) })
    ).stored;
  }
  for (const [index, { customer, products }] of CUSTOMERS.entries()) {
    await call<unknown>("POST", "/contracts", {
      customerId: customerIds[index],
      name: `${customer.name} plan`,
      startDate: from.toISOString(),
      products,
    });
  }
  console.log(`  ${CUSTOMERS.length} customers, ${METERS.length} meters, ${stored} events`);

  const at = new Date(Math.min(Date.now(), monthEnd(month).getTime() + LONGEST_GRACE_MS)).toISOString();
  // The server's billing scheduler may have made some invoices already: the run makes the rest, the listing shows all.
  for (let hasMore = true; hasMore; ) {
    const { run } = await call<{ run: { hasMore: boolean } }>("POST", "/billing-runs", { at });
    hasMore = run.hasMore;
  }
  const { invoices } = await call<{ invoices: { name: string; revenueBreakdown: { total: number } }[] }>(
    "GET",
    "/invoices?limit=100",
  );
  for (const invoice of invoices)
    console.log(`  invoice ${invoice.name}: ${invoice.revenueBreakdown.total.toFixed(2)}`);
  if (invoices.length === 0) console.log(`  no invoice yet: ${label} is still within the server's grace period`);
  console.log(`Done. Browse it at ${url}/docs (GET /invoices, GET /usage, GET /credits) with this account's token.`);
}

try {
  await main();
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  console.error(error instanceof UsageError ? `${message}\n${USAGE}` : `demo failed: ${message}`);
  process.exit(error instanceof UsageError ? 2 : 1);
}
