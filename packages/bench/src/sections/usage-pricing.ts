import type { Api } from "../api.js";
import type { BenchContext } from "../context.js";
import { formatCount, log, progress } from "../progress.js";
import { ratio, runConcurrently } from "../stats.js";

export interface UsagePricingResult {
  customers: number;
  eventsPerCustomer: number;
  /** Invoices made by the billing runs (one per customer) and the calls they took (`hasMore`). */
  invoices: number;
  runCalls: number;
  /** Wall time of all billing runs, per invoice made. */
  apiMsPerInvoice: number;
  /** Wall time of the raw driver reading the same usage (the engine's query, summed in the client), per customer. */
  rawMsPerCustomer: number;
  /** API time per invoice / raw time per customer's usage read. */
  ratio: number;
  /** Whether every invoice carried the usage the raw read found, priced by hand (sum × 0.001, to the cent). */
  amountsMatch: boolean;
}

const EVENT_NAME = "bench.usage";
const METER = "bench-usage";
const PRICE = 0.001;
const PERIOD = { from: Date.UTC(2025, 0, 1), to: Date.UTC(2025, 1, 1) };

/** Customer i's events: `perCustomer` values 1..10 spread over January 2025. */
function eventsOf(customer: number, perCustomer: number) {
  return Array.from({ length: perCustomer }, (_, index) => ({
    ref: `usage-${customer}-${index}`,
    name: EVENT_NAME,
    customerAlias: `bench-usage-${customer}`,
    timestamp: new Date(
      PERIOD.from + Math.floor(((index + 0.5) / perCustomer) * (PERIOD.to - PERIOD.from)),
    ).toISOString(),
    data: { n: String((index % 10) + 1) },
  }));
}

/** Runs billing as of `at` until nothing is left due; returns the invoices made and the calls it took. */
async function billUntilDone(api: Api, at: string) {
  let invoices = 0;
  let calls = 0;
  for (let hasMore = true; hasMore; calls += 1) {
    const { run } = await api.call("POST", "/billing-runs", { at });
    invoices += run.invoicesCreated;
    hasMore = run.hasMore;
    progress(`usage pricing: ${formatCount(invoices)} invoices after ${calls + 1} billing-run calls`);
  }
  return { invoices, calls };
}

/**
 * Customers billed from event-priced usage (a PER_UNIT price on a SUM meter, one January cycle each): billing runs
 * through the API, against the raw driver reading the same usage with the engine's query shape (account, event
 * name, customer alias, time range). Its own account, so other sections' contracts are not billed here.
 */
export async function benchUsagePricing(context: BenchContext, api: Api): Promise<UsagePricingResult> {
  const { usageCustomers: customers, usageEventsPerCustomer: perCustomer } = context.options.sizes;
  await api.call("POST", "/meters", { key: METER, eventName: EVENT_NAME, aggregation: "SUM", valueProperty: "n" }, 201);
  const customerIds: string[] = new Array(customers);
  await runConcurrently(customers, 8, async (index) => {
    const body = { name: `usage-customer-${index}`, aliases: [`bench-usage-${index}`] };
    customerIds[index] = (await api.call("POST", "/customers", body, 201)).customer.id;
    for (let start = 0; start < perCustomer; start += 1000) {
      await api.call("POST", "/events", { events: eventsOf(index, perCustomer).slice(start, start + 1000) });
    }
    const product = { displayName: "API", catalogProductId: METER, pricing: { type: "PER_UNIT", price: PRICE } };
    const contract = {
      customerId: customerIds[index],
      name: "Usage",
      startDate: "2025-01-01T00:00:00Z",
      endDate: "2025-02-01T00:00:00Z",
      products: [product],
    };
    await api.call("POST", "/contracts", contract, 201);
    progress(
      `usage pricing: ${formatCount(customerIds.filter(Boolean).length)} / ${formatCount(customers)} customers ` +
        `with their events`,
    );
  });

  const apiStarted = performance.now();
  const { invoices, calls } = await billUntilDone(api, "2025-02-01T01:00:00Z");
  const apiMs = performance.now() - apiStarted;

  const events = context.db.collection("events");
  const rawUsage: number[] = [];
  const rawStarted = performance.now();
  for (let index = 0; index < customers; index += 1) {
    const cursor = events.find(
      {
        accountId: api.accountId,
        name: EVENT_NAME,
        customerAlias: { $in: [`bench-usage-${index}`] },
        timestamp: { $gte: new Date(PERIOD.from), $lt: new Date(PERIOD.to) },
      },
      { projection: { _id: 1, timestamp: 1, data: 1 } },
    );
    let sum = 0;
    for await (const doc of cursor)
      sum += Number((doc.data as { key: string; value: string }[]).find(({ key }) => key === "n")?.value ?? 0);
    rawUsage.push(sum);
  }
  const rawMs = performance.now() - rawStarted;

  const { invoices: stored } = await api.call("GET", `/invoices?limit=1000`);
  const amountOf = new Map<string, number>(
    stored.map((invoice: { customerId: string; amount: number }) => [invoice.customerId, invoice.amount]),
  );
  const amountsMatch = rawUsage.every(
    (usage, index) => amountOf.get(customerIds[index]!) === Math.round(usage * PRICE * 100) / 100,
  );
  const result = {
    customers,
    eventsPerCustomer: perCustomer,
    invoices,
    runCalls: calls,
    apiMsPerInvoice: apiMs / Math.max(1, invoices),
    rawMsPerCustomer: rawMs / customers,
    ratio: ratio(apiMs / Math.max(1, invoices), rawMs / customers),
    amountsMatch,
  };
  log(
    `usage pricing: ${invoices} invoices, API/raw ${result.ratio.toFixed(2)}, amounts ` +
      `${amountsMatch ? "match" : "DIFFER"}`,
  );
  return result;
}
