import { z } from "zod";
import { resourceRef, serviceId, text, timestamp } from "./common.js";
import { serviceDate } from "./contract.js";
import { invoice } from "./invoice.js";
import { money } from "./money.js";

/** Payments one invoice takes at most: its change log (read whole on every change) stays small. */
export const MAX_PAYMENTS_PER_INVOICE = 100;

const paymentFields = {
  amount: money.gt(0).meta({
    description:
      "Received in the invoice's currency, > 0, at most its `amountDue`, whole minor units (2 decimals in USD, none " +
      "in JPY).",
  }),
  date: serviceDate.optional().meta({ description: "When the money was received; default: when it is recorded." }),
  paymentMethod: text(100).optional().meta({ description: "Free text, e.g. `wire` or `card`." }),
  transactionId: text(200).optional().meta({
    description:
      "The payment provider's id of the transaction: recorded once per account (a re-sent notification is 409).",
  }),
  note: text().optional(),
};

/** `POST /invoices/{invoiceId}/payments`: the path's invoice, the body's payment. */
export const paymentCreate = z.strictObject({
  invoiceId: resourceRef.meta({ description: "The invoice's id." }),
  ...paymentFields,
});
export type PaymentCreate = z.infer<typeof paymentCreate>;

export const payment = z
  .object({
    id: serviceId,
    invoiceId: serviceId,
    ...paymentFields,
    amount: money.meta({ description: "Received, in the invoice's currency." }),
    date: timestamp,
    createdAt: timestamp.meta({ description: "When the payment was recorded." }),
  })
  .meta({ id: "Payment" });
export type Payment = z.infer<typeof payment>;

export const paymentResponse = z.object({ invoice, payment });
export const paymentList = z.object({
  payments: z.array(payment).meta({ description: "In the order they were recorded (at most 100)." }),
});
export type PaymentList = z.infer<typeof paymentList>;

/** `POST /invoices/{invoiceId}/void`. */
export const invoiceVoid = z.strictObject({
  invoiceId: resourceRef.meta({ description: "The invoice's id." }),
  reason: text(1000).optional().meta({ description: "Why, kept in the invoice's change log." }),
});
export type InvoiceVoid = z.infer<typeof invoiceVoid>;
