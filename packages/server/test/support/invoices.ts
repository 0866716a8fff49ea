import type { InvoiceDraft } from "@billing/shared";
import { ObjectId } from "mongodb";
import { newId, type TestServer } from "./server.js";

/** A revenue breakdown that is all subtotal. */
export const breakdown = (total: number) => ({
  total,
  subtotal: total,
  overage: 0,
  discount: 0,
  creditsUsed: 0,
  tax: 0,
});

/**
 * A valid minimal draft of 10 USD for `month` of 2024: no paymentInfo, no optional line item fields, and a customer
 * and contract that name nothing stored, unless `fields` says otherwise.
 */
export const invoiceDraft = (fields: Partial<InvoiceDraft> = {}, month = 1): InvoiceDraft => ({
  customerId: newId(),
  contractId: newId(),
  name: `Invoice ${month}`,
  billingCycle: {
    startTime: new Date(Date.UTC(2024, month - 1, 1)).toISOString(),
    endTime: new Date(Date.UTC(2024, month, 1)).toISOString(),
  },
  revenueBreakdown: breakdown(10),
  billingStatus: "None",
  dueDate: new Date(Date.UTC(2024, month, 31)).toISOString(),
  amount: 10,
  lineItems: [{ name: "Seat", kind: "ONE_TIME", revenueBreakdown: breakdown(10) }],
  ...fields,
});

/**
 * Stores a draft as the billing engine does, through the repository: no route writes invoices, and the engine makes
 * only the invoices its contracts produce, not every field (paymentInfo, each line item kind) a reading test needs.
 */
export const insertInvoice = (server: TestServer, accountId: string, draft: InvoiceDraft) =>
  server.service.repositories.invoices.insert(accountId, draft, {
    id: new ObjectId(),
    // One invoice per contract and cycle start, priced on the meters its lines name.
    cycleKey: new Date(draft.billingCycle.startTime).toISOString(),
    meterKeys: draft.lineItems.flatMap((line) => (line.catalogProductId ? [line.catalogProductId] : [])),
  });
