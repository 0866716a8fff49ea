import type { Contract } from "@billing/shared";

/** A customer body with every field, holding values that are easy to get wrong (`$` and dotted keys, nulls). */
export const FULL_CUSTOMER = {
  name: "Acme Corp",
  aliases: ["acme", "acme-eu"],
  contacts: [{ name: "Ada", email: "ada@acme.test", title: "CFO", phone: "+1 555", receiveInvoiceEmail: true }],
  source: "Stripe",
  taxId: "DE123",
  externalId: "crm-42",
  customerErpId: "erp-7",
  address: { country: "DE", city: "Berlin", addressText: "Str. 1", state: "BE", postalCode: "10115" },
  crmAccountId: "crm-acc-1",
  dueDays: "END_OF_MONTH",
  customFields: [
    {
      serviceCustomFieldName: "tier",
      valueType: "String",
      integrationSource: "NetSuite",
      integrationEntityType: "customer",
      fieldPath: "a.b",
      value: { $gt: 1, "a.b": [1, null, "x"] },
    },
  ],
};

/** What a contract created with its required fields only holds besides them: the defaults of POST /contracts. */
export const CONTRACT_DEFAULTS = {
  shouldProRateInvoices: false,
  autoRenewContract: true,
  status: "Active",
  currency: "USD",
  renewals: 0,
  version: 1,
} as const;

/** A contract as stored, for the pure rules of its lifecycle and billing: from Jan 15 2024, the defaults otherwise. */
export const STORED_CONTRACT = {
  id: "0123456789abcdef01234567",
  customerId: "0123456789abcdef01234568",
  name: "Plan",
  startDate: "2024-01-15T00:00:00.000Z",
  ...CONTRACT_DEFAULTS,
  createdAt: "2024-01-01T00:00:00.000Z",
  updatedAt: "2024-01-01T00:00:00.000Z",
} satisfies Contract;
