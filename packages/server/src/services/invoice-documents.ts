import type { Customer } from "@billing/shared";
import type { Party } from "../documents/content.js";
import { notFound } from "../domain/errors.js";
import { sellerOf } from "../repositories/accounts.js";
import type { Repositories } from "../repositories/index.js";

/**
 * Where an invoice goes: the contact who asked for invoice emails, else the first with an address; the customer's
 * name, address and tax id as stored now (a document shows the customer as it is when it is downloaded).
 */
function buyerOf(customer: Customer): Party {
  const contacts = customer.contacts ?? [];
  const email = (
    contacts.find((contact) => contact.receiveInvoiceEmail && contact.email) ?? contacts.find((c) => c.email)
  )?.email;
  return {
    name: customer.name,
    ...(customer.address && { address: customer.address }),
    ...(customer.taxId !== undefined && { taxId: customer.taxId }),
    ...(email !== undefined && { email }),
  };
}

/** An invoice of the account with its seller (the account) and buyer (its customer): what its documents show. */
export async function invoiceWithParties(repositories: Repositories, accountId: string, invoiceId: string) {
  const invoice = await repositories.invoices.get(accountId, invoiceId);
  if (!invoice) throw notFound("Invoice");
  const [account, customer] = await Promise.all([
    repositories.accounts.get(accountId),
    repositories.customers.get(accountId, invoice.customerId),
  ]);
  if (!account) throw notFound("Account");
  // Customers are never deleted; an invoice stored without one (made by hand) still names its customer by id.
  const buyer = customer ? buyerOf(customer) : { name: invoice.customerId };
  return { invoice, seller: sellerOf(account), buyer };
}
