// Runs against a local server: start it with `pnpm start` (it prints a token on first start), then
//   BILLING_TOKEN=<token> pnpm --filter @billing/client example
// (BILLING_URL names another server). Safe to run again: what exists already is reused.
import { ConflictError, type Customer, createBillingClient } from "@billing/client";

const client = createBillingClient({
  baseUrl: process.env.BILLING_URL ?? "http://127.0.0.1:3000",
  token: process.env.BILLING_TOKEN ?? "",
});

async function findOrCreateCustomer(name: string): Promise<Customer> {
  try {
    // Its events name it by an alias (or by its externalId).
    return await client.customers.create({ name, externalId: `crm-${name}`, aliases: ["quickstart"] });
  } catch (error) {
    if (error instanceof ConflictError) return client.customers.getByName(name);
    throw error;
  }
}

const customer = await findOrCreateCustomer("Quickstart Inc");
console.log("customer", customer.id, customer.name);

// A meter counts the customer's "api.call" events; its key is what measurements and products name.
try {
  await client.meters.create({ key: "api-calls", eventName: "api.call", aggregation: "COUNT" });
} catch (error) {
  if (!(error instanceof ConflictError)) throw error;
}

const today = new Date();
const measurement = await client.measurements.create({
  customerId: customer.id,
  meterId: "seats",
  usageDate: { year: today.getUTCFullYear(), month: today.getUTCMonth() + 1, day: today.getUTCDate() },
  value: 12,
});
console.log("measured", measurement.value, "on", measurement.usageDate);

const ingested = await client.events.ingest([
  {
    name: "api.call",
    timestamp: today.toISOString(),
    customerAlias: "quickstart",
    ref: `quickstart-${today.toISOString()}`,
    data: { path: "/v1/things" },
  },
]);
console.log("events stored", ingested.stored, "duplicates", ingested.duplicates.length);
const oneSecondLater = new Date(today.getTime() + 1000).toISOString();
const [stored] = (await client.events.query({ startTime: today.toISOString(), endTime: oneSecondLater })).events;
if (stored) console.log("why it counts:", JSON.stringify((await client.events.explain(stored.id)).attribution));

const entry = await client.credits.grant({ customerId: customer.id, amount: 25.5, type: "Grant" });
console.log("credit balance", entry.balanceAfterEntry);

let count = 0;
for await (const each of client.customers.listAll()) {
  count += 1;
  if (each.id === customer.id) console.log("found our customer while paging");
}
console.log("customers in the account:", count);
