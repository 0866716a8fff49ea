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
