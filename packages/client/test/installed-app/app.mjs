// An app that installed the SDK from its tarball, as ESM: what it prints, the package test reads.
import { API_VERSION, createBillingClient, ValidationError } from "@billing/client";

const billing = createBillingClient({ baseUrl: process.env.BILLING_URL ?? "", token: process.env.BILLING_TOKEN ?? "" });
const customer = await billing.customers.create({ name: "ESM app", externalId: "esm-app" });
const names = (await billing.customers.listAll().toArray()).map((each) => each.name);
// @ts-expect-error: a customer needs a name, which the package's declarations say
const refused = await billing.customers.create({ externalId: "nameless" }).catch((error) => error);
const refusedFields = refused instanceof ValidationError ? refused.issues.map((issue) => issue.path) : String(refused);
console.log(JSON.stringify({ apiVersion: API_VERSION, customerId: customer.id, names, refusedFields }));
