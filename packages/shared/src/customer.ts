import { z } from "zod";
import { pageInfo, pageQuery, requiredText, text, timestamp } from "./common.js";
import { customField } from "./custom-field.js";

export const contact = z
  .strictObject({
    name: text(200).optional(),
    email: z.email().max(320).optional(),
    title: text(200).optional(),
    phone: text(50).optional(),
    receiveInvoiceEmail: z.boolean().optional(),
  })
  .meta({ id: "Contact" });

export const address = z
  .strictObject({
    country: text(100).optional(),
    city: text(200).optional(),
    addressText: text(1000).optional(),
    state: text(100).optional(),
    postalCode: text(50).optional(),
  })
  .meta({ id: "Address" });

/** Fields a caller writes; the service adds id, createdAt and updatedAt. */
const customerFields = {
  name: requiredText().meta({ description: "Unique within the account; matched exactly by GET /customers/name/{name}." }),
  aliases: z.array(requiredText()).max(100).optional().meta({ description: "Other names, e.g. the customerAlias of usage events." }),
  contacts: z.array(contact).max(100).optional(),
  source: text(100).optional().meta({ description: "Name of the payment provider." }),
  taxId: text(100).optional(),
  externalId: text(200).optional().meta({ description: "The caller's own id; GET /customers/{customerId} also matches it." }),
  customerErpId: text(200).optional(),
  address: address.optional(),
  crmAccountId: text(200).optional(),
  dueDays: z.enum(["END_OF_MONTH"]).optional(),
  customFields: z.array(customField).max(100).optional(),
};

export const customerCreate = z.strictObject(customerFields).meta({ id: "CustomerCreate" });
export type CustomerCreate = z.infer<typeof customerCreate>;

export const customerUpdate = z
  .strictObject(customerFields)
  .partial()
  .meta({ id: "CustomerUpdate", description: "Fields given replace the stored ones; fields left out are kept." });
export type CustomerUpdate = z.infer<typeof customerUpdate>;

export const customer = z
  .object({
    id: z.string(),
    ...customerFields,
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: "Customer" });
export type Customer = z.infer<typeof customer>;

export const customerIdParam = z.string().min(1).max(200).meta({ description: "The service id or, failing that, the externalId." });

export const customerListQuery = z.object(pageQuery);
export const customerList = z.object({ customers: z.array(customer), ...pageInfo });
export type CustomerList = z.infer<typeof customerList>;
