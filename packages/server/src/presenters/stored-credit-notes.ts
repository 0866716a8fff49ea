import type { CreditNote, ProviderRefund } from "@billing/shared";
import type { ObjectId } from "mongodb";
import { iso } from "../db/ids.js";
import type { CreditNoteAdjusts } from "../domain/invoices/life.js";
import { DEFAULT_CURRENCY } from "../domain/money/currency.js";
import type { Micros } from "../domain/money/micros.js";
import { amountOf, unitsOf } from "./money.js";

// A credit note as the repository stores it (its amount in micro-units) and as the API shows it.

/** A credit note as stored: its amount in micro-units. Its `_id` is the id its invoice's change log gave it. */
export interface CreditNoteDoc {
  _id: ObjectId;
  accountId: string;
  invoiceId: string;
  customerId: string;
  number: string;
  amountMicros: Micros;
  /** Its invoice's; absent on credit notes stored before currencies: USD. */
  currency?: string;
  reason: CreditNote["reason"];
  refund: CreditNote["refund"];
  /** `PROVIDER` notes: the refunds, amounts in micro-units. */
  providerRefund?: ProviderRefundDoc;
  /** A USAGE_CORRECTION a billing run made (late usage): what it corrects. */
  adjusts?: CreditNoteAdjusts;
  /** When its provider refund ended (SUCCEEDED or FAILED): the webhook sweep reads refunds' messages by it. */
  refundSettledAt?: Date;
  createdAt: Date;
}

export interface ProviderRefundDoc {
  provider: ProviderRefund["provider"];
  status: ProviderRefund["status"];
  origin: ProviderRefund["origin"];
  /** `failed`: the provider reported the refund failed or canceled after it accepted it. */
  refunds: { paymentId: string; micros: Micros; refundId?: string; failed?: true }[];
  failureMessage?: string;
}

export const toCreditNote = ({
  _id,
  amountMicros,
  createdAt,
  accountId: _account,
  currency = DEFAULT_CURRENCY,
  providerRefund,
  adjusts,
  refundSettledAt: _settled,
  ...fields
}: CreditNoteDoc): CreditNote => ({
  id: _id.toHexString(),
  ...fields,
  ...(adjusts && {
    adjusts: {
      product: adjusts.product,
      quantity: unitsOf(BigInt(adjusts.quantityMicros)),
      foundBy: adjusts.foundBy,
    },
  }),
  currency,
  ...(providerRefund && {
    providerRefund: {
      ...providerRefund,
      refunds: providerRefund.refunds.map(({ micros, ...refund }) => ({ ...refund, amount: amountOf(micros) })),
    },
  }),
  amount: amountOf(amountMicros),
  createdAt: iso(createdAt),
});
