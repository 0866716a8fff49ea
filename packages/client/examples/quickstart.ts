// Runs against a local server: start it with `pnpm start` (it prints a token on first start), then
//   BILLING_TOKEN=<token> pnpm --filter @billing/client example
import { ConflictError, type Customer, createBillingClient } from "@billing/client";

const client = createBillingClient({
  baseUrl: process.env.BILLING_URL ?? "http://127.0.0.1:3000",
  token: process.env.BILLING_TOKEN ?? "",
});

async function findOrCreateCustomer(name: string): Promise<Customer> {
  try {
    return await client.customers.create({ name, externalId: `crm-${name}` });
  } catch (error) {
    if (error instanceof ConflictError) return client.customers.getByName(name);
    throw error;
  }
}

const customer = await findOrCreateCustomer("Quickstart Inc");
console.log("customer", customer.id, customer.name);

const today = new Date();
const measurement = await client.measurements.create({
  customerId: customer.id,
  meterId: "api-calls",
  usageDate: { year: today.getUTCFullYear(), month: today.getUTCMonth() + 1, day: today.getUTCDate() },
  value: 1234,
});
console.log("measured", measurement.value, "on", measurement.usageDate);

const ingested = await client.events.ingest([
  {
    name: "api.call",
    timestamp: today.toISOString(),
    customerAlias: customer.name,
    ref: `quickstart-${today.toISOString()}`,
    data: { path: "/v1/things" },
  },
]);
console.log("events stored", ingested.stored, "duplicates", ingested.duplicates.length);

const entry = await client.credits.grant({ customerId: customer.id, amount: 25.5, type: "Grant" });
console.log("credit balance", entry.balanceAfterEntry);

let count = 0;
for await (const each of client.customers.listAll()) {
  count += 1;
  if (each.id === customer.id) console.log("found our customer while paging");
}
console.log("customers in the account:", count);
