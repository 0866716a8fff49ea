import { z } from "zod";
import { customerPaymentProvider, paymentMethodStatus } from "./collection.js";
import { pageInfo, pageQuery, requiredText, text, timestamp } from "./common.js";
import { customField } from "./custom-field.js";
import { taxRateCodes } from "./tax-rate.js";

/** Days from an invoice's issue to its due date when neither its customer nor its account says otherwise. */
export const DEFAULT_NET_TERMS_DAYS = 30;

/** Payment terms in days after issue: 0 (due on issue) to 365. */
export const netTermsDays = z.number().int().min(0).max(365);

/**
 * Aliases one customer may have. A usage read matches the customer's aliases and its externalId with one `$in`, which
 * MongoDB serves in time order only up to 200 values (the server's query-shape proof checks it): 100 + 1 stays within.
 */
export const MAX_ALIASES_PER_CUSTOMER = 100;

/**
 * zod's email pattern, with domain labels of at most 63 characters that do not end in "-", plus the RFC 5321
 * lengths (local part ≤ 64, domain ≤ 253): what `format: email` validators of the OpenAPI document enforce, so
 * an address the service accepts is one its document calls valid.
 */
const EMAIL_LOCAL_PART = String.raw`(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]`;
const EMAIL_DOMAIN = String.raw`(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}`;
const EMAIL_PATTERN = new RegExp(`^${EMAIL_LOCAL_PART}@${EMAIL_DOMAIN}$`);
const withinRfcLengths = (address: string) => {
  const at = address.lastIndexOf("@");
  return at <= 64 && address.length - at - 1 <= 253;
};
export const emailAddress = z
  .email({ pattern: EMAIL_PATTERN })
  .max(320)
  .refine(withinRfcLengths, "local part at most 64 characters, domain at most 253");

export const contact = z
  .strictObject({
    name: text(200).optional(),
    email: emailAddress.optional(),
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
  name: requiredText().meta({
    description: "Unique within the account; matched exactly by GET /customers/name/{name}.",
  }),
  aliases: z
    .array(requiredText())
    .max(MAX_ALIASES_PER_CUSTOMER)
    .refine((aliases) => new Set(aliases).size === aliases.length, "must not list an alias twice")
    .optional()
    .meta({
      uniqueItems: true,
      description:
        "Other names, e.g. the customerAlias of usage events; unique within the account (409 when another customer " +
        "holds one).",
    }),
  contacts: z.array(contact).max(100).optional(),
  source: text(100).optional().meta({ description: "Name of the payment provider." }),
  taxId: text(100).optional(),
  taxExempt: z.boolean().optional().meta({ description: "true: the customer's invoices carry no tax and say so." }),
  taxRateCodes: taxRateCodes.optional(),
  externalId: text(200)
    .optional()
    .meta({ description: "The caller's own id; GET /customers/{customerId} also matches it." }),
  customerErpId: text(200).optional(),
  address: address.optional(),
  crmAccountId: text(200).optional(),
  dueDays: z
    .enum(["END_OF_MONTH"])
    .optional()
    .meta({
      description:
        "`END_OF_MONTH`: invoices are due on the last day of the month they are issued in (of the next month " +
        "when issued on that day); wins over `netTermsDays`.",
    }),
  netTermsDays: netTermsDays
    .optional()
    .meta({ description: "Days from an invoice's issue to its due date; the account's `netTermsDays` when unset." }),
  customFields: z.array(customField).max(100).optional(),
  paymentProvider: customerPaymentProvider.optional().meta({
    description: "The customer at the account's payment provider, charged for its invoices.",
  }),
  autoCollect: z.boolean().optional().meta({
    description: "Overrides the account's `autoCollect` for this customer's invoices.",
  }),
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
    paymentMethod: paymentMethodStatus.optional().meta({
      description: "Whether the provider had a default payment method for the customer when last looked at.",
    }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: "Customer" });
export type Customer = z.infer<typeof customer>;

export const customerIdParam = z
  .string()
  .min(1)
  .max(200)
  .meta({ description: "The service id or, failing that, the externalId." });

export const customerListQuery = z.object({
  ...pageQuery,
  alias: requiredText()
    .optional()
    .meta({ description: "Only the customer listing this alias (exactly; an alias names one customer at most)." }),
});
export const customerList = z.object({ customers: z.array(customer), ...pageInfo });
export type CustomerList = z.infer<typeof customerList>;
