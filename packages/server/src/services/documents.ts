import type { Customer } from "@billing/shared";
import type { Party } from "../documents/content.js";
import { notFound } from "../domain/errors.js";
import { sellerOf } from "../repositories/accounts.js";
import type { Repositories } from "../repositories/index.js";

/**
 * Where a document goes: the contact who asked for invoice emails, else the first with an address; the customer's
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

/** The seller (the account) and buyer (its customer) of a document of the account. */
async function partiesOf(repositories: Repositories, accountId: string, customerId: string) {
  const [account, customer] = await Promise.all([
    repositories.accounts.get(accountId),
    repositories.customers.get(accountId, customerId),
  ]);
  if (!account) throw notFound("Account");
  // Customers are never deleted; a document stored without one (made by hand) still names its customer by id.
  // `test`: a test account's document, marked as such.
  const buyer = customer ? buyerOf(customer) : { name: customerId };
  return { seller: sellerOf(account), buyer, test: account.testClock !== undefined };
}

/** An invoice of the account with its seller and buyer: what its documents show. */
export async function invoiceWithParties(repositories: Repositories, accountId: string, invoiceId: string) {
  const invoice = await repositories.invoices.get(accountId, invoiceId);
  if (!invoice) throw notFound("Invoice");
  return { invoice, ...(await partiesOf(repositories, accountId, invoice.customerId)) };
}

/** A credit note of the account with the number of the invoice it credits, its seller and buyer. */
export async function creditNoteWithParties(repositories: Repositories, accountId: string, creditNoteId: string) {
  const creditNote = await repositories.creditNotes.get(accountId, creditNoteId);
  if (!creditNote) throw notFound("Credit note");
  const [invoice, parties] = await Promise.all([
    repositories.invoices.get(accountId, creditNote.invoiceId),
    partiesOf(repositories, accountId, creditNote.customerId),
  ]);
  // Only a finalized (numbered) invoice takes a credit note; invoices are never deleted, so the id is a fallback only.
  return { creditNote, invoiceNumber: invoice?.number ?? creditNote.invoiceId, ...parties };
}
