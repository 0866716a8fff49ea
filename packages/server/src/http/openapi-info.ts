import type { OpenAPIObject } from "trpc-to-openapi";

/** Every tag the routers give their operations, in the order the reference shows them, with what it groups. */
export const TAGS = [
  { name: "customers", description: "The accounts you bill: names, aliases and externalIds that usage is matched by." },
  {
    name: "meters",
    description: "How usage events of a name become a daily quantity (count, sum, max, latest or unique count).",
  },
  { name: "events", description: "Raw usage events, deduplicated by `ref`; `data` values are strings." },
  { name: "measurements", description: "A customer's usage of a meter for a day, written directly instead of events." },
  { name: "usage", description: "A customer's usage of a meter over days, from measurements and metered events." },
  {
    name: "contracts",
    description:
      "What a customer is charged: products with one-time, flat, per-unit, package, tiered or per-seat prices, " +
      "minimums, maximums and discounts.",
  },
  {
    name: "plans",
    description:
      "The price catalog: versioned plans contracts follow, with overrides, and migrations between versions.",
  },
  {
    name: "tax-rates",
    description: "Tax rates by code, exclusive or inclusive, that products, contracts, customers and the account name.",
  },
  {
    name: "coupons",
    description: "Codes a contract applies for a discount: PERCENT or AMOUNT, once, for N cycles or for ever.",
  },
  { name: "credits", description: "Prepaid credit grants and the ledger of what invoices burnt from them." },
  { name: "invoices", description: "Invoices the billing runs made, and previews of a contract's current cycle." },
  {
    name: "credit-notes",
    description: "Credit notes: part of a finalized invoice taken off what is owed, or given back as credits.",
  },
  {
    name: "alerts",
    description:
      "Thresholds on a meter's usage per day or billing cycle: `usage.threshold_crossed` when one is reached.",
  },
  { name: "tokens", description: "The token making the call: its account and scope (read or write)." },
  {
    name: "entitlements",
    description: "Whether a customer may use a meter now: its committed limit, usage and what is left.",
  },
  { name: "billing", description: "Billing runs: every invoice due up to a moment, each made exactly once." },
  {
    name: "test-clocks",
    description: "A test account's own billing time: advance it, and a year of billing happens in seconds.",
  },
  {
    name: "collection",
    description: "Collecting payment: the account's payment provider (Stripe), charges, retries and reminders.",
  },
  {
    name: "audit-log",
    description: "Who changed what: one entry per change, kept AUDIT_RETENTION_DAYS, never changed by the API.",
  },
  {
    name: "reports",
    description: "Month-end figures summed from insert-only ledgers: receivables aging, revenue, MRR.",
  },
  {
    name: "exports",
    description:
      "Files a warehouse or a spreadsheet loads: invoices, lines, credit notes, revenue; kept EXPORT_RETENTION_DAYS.",
  },
  { name: "webhooks", description: "Endpoints that receive signed events, and their deliveries." },
  { name: "admin", description: "Accounts and their tokens; needs the server's ADMIN_TOKEN, not an account's token." },
];

/**
 * The document's own description: tags, contact and licence (generateOpenApiDocument sets none of them). The
 * repository ships no licence, so the document says it is proprietary (SPDX `LicenseRef-`: a licence of its own).
 */
export function describeDocument(document: OpenAPIObject) {
  document.info.contact = { name: "Usage-based billing service maintainers" };
  document.info.license = { name: "Proprietary", identifier: "LicenseRef-Proprietary" };
  document.tags = TAGS;
}
