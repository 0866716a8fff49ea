import {
  type BillingStatus,
  fromMicros,
  type Invoice,
  type InvoiceDispute,
  type InvoiceDraft,
  type InvoiceStatus,
  type PaymentInfo,
  type RevenueBreakdown,
} from "@billing/shared";
import type { ObjectId } from "mongodb";
import { iso } from "../db/ids.js";
import type { BreakdownInMicros, InvoiceDraftInMicros, LineItemInMicros } from "../domain/billing/pipeline.js";
import { includedTaxMicros, type LineTaxInMicros, taxSummaryOf } from "../domain/billing/tax.js";
import { amountDueOf, billingStatusOf, type InvoiceLife, isOverdue, isOwing } from "../domain/invoices/life.js";
import { DEFAULT_CURRENCY } from "../domain/money/currency.js";
import { asMicros, type Micros, subMicros, ZERO_MICROS } from "../domain/money/micros.js";
import { presentBreakdown, presentLineTax } from "./invoices.js";
import { microsOf, unitsOf } from "./money.js";

// An invoice as the repository stores it (integer micro-units, dates as dates) and as the API shows it: the shapes
// of the stored document, and the conversions between them, both ways.

/**
 * Absent `taxInclusive`: an invoice priced before it existed, whose `tax` held the included tax too (see
 * `loadBreakdown`).
 */
type StoredBreakdown = Record<Exclude<keyof RevenueBreakdown, "taxInclusive">, Micros> & {
  taxInclusive?: Micros;
};
type DraftLineItem = InvoiceDraft["lineItems"][number];

type TierDoc = { upTo: number | null; quantity: number; unitPrice: Micros; flatPrice: Micros; amount: Micros };
/** A line's tax as stored: amounts in micro-units; the rate as it priced the line. */
type LineTaxDoc = Omit<LineTaxInMicros, "taxableMicros" | "amountMicros"> & { taxableAmount: Micros; amount: Micros };
type LineItemDoc = Omit<DraftLineItem, "revenueBreakdown" | "unitPrice" | "tiers" | "packages" | "taxes"> & {
  revenueBreakdown: StoredBreakdown;
  /** Absent on invoices stored before taxes: none. */
  taxes?: LineTaxDoc[];
  unitPrice?: Micros;
  tiers?: TierDoc[];
  packages?: { count: number; size: number; price: Micros };
};
/** The payment's currency is not stored: it is the invoice's. */
type PaymentInfoDoc = Omit<PaymentInfo, "date" | "amount" | "currency"> & { date?: Date; amount?: Micros };

/** An invoice's lines and totals as stored: what a run re-prices in a draft, and a FINALIZE fixes. */
export interface StoredPricing {
  revenueBreakdown: StoredBreakdown;
  amount: Micros;
  lineItems: LineItemDoc[];
  /** Absent on invoices stored before taxes: not exempt. */
  taxExempt?: boolean;
  /**
   * The currency the lines were priced in: a draft priced again after its contract's currency changed (the change
   * raced the run that stored it) takes the new one with its new lines. Absent on invoices stored before currencies.
   */
  currency?: string;
  /**
   * When it is due, counted from when it was priced: a finalization prices it at its issue, so a finalized invoice's
   * is its issue date plus its terms. Absent on changes logged before due dates followed the issue date.
   */
  dueDate?: Date;
}

export type StoredInvoiceLife = InvoiceLife<StoredPricing>;

/** lineItems[].invoiceId is not stored: it is always the invoice's own `_id`. */
export type InvoiceDoc = Omit<
  InvoiceDraft,
  | "billingCycle"
  | "revenueBreakdown"
  | "dueDate"
  | "amount"
  | "lineItems"
  | "paymentInfo"
  | "billingStatus"
  | "taxExempt"
  | "taxSummary"
  | "currency"
> & {
  _id: ObjectId;
  /** Absent on invoices stored before currencies: USD. */
  currency?: string;
  accountId: string;
  /** 1, 2, … per account in the order invoices were stored: lists follow it, so a walk misses no later invoice. */
  seq: number;
  /** Which of its contract's invoices this is (the billing engine's cycle key): unique per contract. */
  cycleKey: string;
  /**
   * The meters whose usage of the billing cycle the invoice priced, group products' included (their usage shows
   * only in the group's line).
   */
  meterKeys: string[];
  billingCycle: { startTime: Date; endTime: Date };
  revenueBreakdown: StoredBreakdown;
  dueDate: Date;
  amount: Micros;
  lineItems: LineItemDoc[];
  taxExempt?: boolean;
  paymentInfo?: PaymentInfoDoc;
  /** The open or lost dispute of one of its charges (the provider's word; services/collection/provider-webhooks.ts). */
  dispute?: InvoiceDispute;
  /**
   * The invoice's life (see domain/invoices/life.ts), as of its `changeCount`-th change; invoices stored before
   * it existed have none of these fields and read as finalized without a number, nothing paid.
   */
  status?: InvoiceStatus;
  number?: string | null;
  changeCount?: number;
  amountPaid?: Micros;
  amountCredited?: Micros;
  billingStatus: BillingStatus;
  /** FINALIZED with something due: stored so that `overdue` is a filter an index serves. */
  owing?: boolean;
  /** A draft's: when runs finalize it (due, plus INVOICE_DRAFT_PERIOD), and the `at` of the run that last priced it. */
  finalizesAt?: Date;
  pricedAt?: Date;
  finalizedAt?: Date | null;
  /** On the server's clock, where finalizedAt is the issue date (a run's `at`): what the webhook sweep reads. */
  finalizationLoggedAt?: Date | null;
  paidAt?: Date | null;
  voidedAt?: Date | null;
  voidReason?: string;
  uncollectibleAt?: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

/**
 * A stored breakdown as the API shows it. Invoices priced before `taxInclusive` existed kept every tax, the included
 * too, in `tax`: their included tax is read off the taxes of their lines (`taxes`) and taken out of `tax`, so that
 * total = subtotal + overage − discount + tax − creditsUsed holds for them as well.
 */
const loadBreakdown = ({ taxInclusive, ...stored }: StoredBreakdown, taxes: LineTaxInMicros[]): RevenueBreakdown => {
  const included = taxInclusive ?? includedTaxMicros(taxes);
  const tax = taxInclusive === undefined ? subMicros(stored.tax, included) : stored.tax;
  return presentBreakdown({ ...stored, tax, taxInclusive: included });
};

/** A quantity of units as stored: the decimal the API shows (amounts are stored in micro-units). */
const storedUnits = (quantityMicros: bigint) => unitsOf(quantityMicros);

/** The engine's breakdown (micro-units as plain numbers) as stored: the step where they become `Micros`. */
const storedBreakdownOf = (breakdown: BreakdownInMicros): StoredBreakdown =>
  Object.fromEntries(Object.entries(breakdown).map(([field, micros]) => [field, asMicros(micros)])) as StoredBreakdown;

// Optional fields are spread in only when present: the driver would store an `undefined` as null.
const storeLineItem = ({
  quantityMicros,
  unitPriceMicros,
  tiers,
  packages,
  taxes,
  adjusts,
  revenueBreakdown,
  ...fields
}: LineItemInMicros): LineItemDoc => ({
  ...fields,
  revenueBreakdown: storedBreakdownOf(revenueBreakdown),
  ...(adjusts && {
    adjusts: {
      invoiceId: adjusts.invoiceId,
      number: adjusts.number,
      product: adjusts.product,
      quantity: storedUnits(adjusts.quantityMicros),
    },
  }),
  taxes: taxes.map(({ taxableMicros, amountMicros, ...rate }) => ({
    ...rate,
    taxableAmount: asMicros(taxableMicros),
    amount: asMicros(amountMicros),
  })),
  ...(quantityMicros !== undefined && { quantity: storedUnits(quantityMicros) }),
  ...(unitPriceMicros !== undefined && { unitPrice: asMicros(unitPriceMicros) }),
  ...(tiers && {
    tiers: tiers.map((tier) => ({
      upTo: tier.upToMicros === null ? null : fromMicros(tier.upToMicros),
      quantity: storedUnits(tier.quantityMicros),
      unitPrice: asMicros(tier.unitPriceMicros),
      flatPrice: asMicros(tier.flatPriceMicros),
      amount: asMicros(tier.amountMicros),
    })),
  }),
  ...(packages && {
    packages: {
      count: Number(packages.count),
      size: fromMicros(packages.sizeMicros),
      price: asMicros(packages.priceMicros),
    },
  }),
});

/** A stored line's taxes in micro-units, as the domain reads them. */
const lineTaxesOf = (taxes: LineTaxDoc[] = []): LineTaxInMicros[] =>
  taxes.map(({ taxableAmount, amount, ...rate }) => ({ ...rate, taxableMicros: taxableAmount, amountMicros: amount }));

const loadLineItem =
  (invoiceId: string) =>
  ({ revenueBreakdown, unitPrice, tiers, packages, taxes, ...fields }: LineItemDoc) => ({
    invoiceId,
    ...fields,
    revenueBreakdown: loadBreakdown(revenueBreakdown, lineTaxesOf(taxes)),
    taxes: lineTaxesOf(taxes).map(presentLineTax),
    ...(unitPrice !== undefined && { unitPrice: fromMicros(unitPrice) }),
    ...(tiers && {
      tiers: tiers.map((tier) => ({
        ...tier,
        unitPrice: fromMicros(tier.unitPrice),
        flatPrice: fromMicros(tier.flatPrice),
        amount: fromMicros(tier.amount),
      })),
    }),
    ...(packages && { packages: { ...packages, price: fromMicros(packages.price) } }),
  });

export const storePaymentInfo = ({ date, amount, currency: _currency, ...fields }: PaymentInfo): PaymentInfoDoc => ({
  ...fields,
  ...(date !== undefined && { date: new Date(date) }),
  ...(amount !== undefined && { amount: microsOf(amount) }),
});

const loadPaymentInfo = ({ date, amount, ...fields }: PaymentInfoDoc, currency: string): PaymentInfo => ({
  ...fields,
  currency,
  ...(date !== undefined && { date: iso(date) }),
  ...(amount !== undefined && { amount: fromMicros(amount) }),
});

/** The lines and totals of a draft as stored. */
export const storedPricingOf = ({
  revenueBreakdown,
  amountMicros,
  lineItems,
  taxExempt,
  currency,
  dueDate,
}: InvoiceDraftInMicros): StoredPricing => ({
  revenueBreakdown: storedBreakdownOf(revenueBreakdown),
  amount: asMicros(amountMicros),
  lineItems: lineItems.map(storeLineItem),
  taxExempt,
  currency,
  dueDate: new Date(dueDate),
});

/**
 * The life an invoice document records (invoices stored before lives existed: finalized, nothing paid). Its latest
 * payment is not read back: `paymentInfo` is written only by the change that records a payment.
 */
export function lifeOf(doc: InvoiceDoc): StoredInvoiceLife {
  return {
    status: doc.status ?? "FINALIZED",
    number: doc.number ?? null,
    totalMicros: doc.amount,
    priced: {
      revenueBreakdown: doc.revenueBreakdown,
      amount: doc.amount,
      lineItems: doc.lineItems,
      taxExempt: doc.taxExempt ?? false,
      ...(doc.currency !== undefined && { currency: doc.currency }),
      dueDate: doc.dueDate,
    },
    amountPaid: doc.amountPaid ?? ZERO_MICROS,
    amountCredited: doc.amountCredited ?? ZERO_MICROS,
    finalizedAt: doc.finalizedAt ?? null,
    finalizationLoggedAt: doc.finalizationLoggedAt ?? null,
    paidAt: doc.paidAt ?? null,
    voidedAt: doc.voidedAt ?? null,
    ...(doc.voidReason !== undefined && { voidReason: doc.voidReason }),
    uncollectibleAt: doc.uncollectibleAt ?? null,
    changeCount: doc.changeCount ?? 0,
  };
}

/** The invoice as the API shows it, its money and `overdue` as of `now`. */
export function toInvoice(doc: InvoiceDoc, now: Date): Invoice {
  const {
    _id,
    seq: _seq,
    cycleKey: _key,
    meterKeys: _meterKeys,
    billingCycle,
    revenueBreakdown,
    dueDate,
    amount,
    lineItems,
    taxExempt,
    paymentInfo,
    status: _status,
    number: _number,
    changeCount: _changeCount,
    amountPaid: _paid,
    amountCredited: _credited,
    billingStatus: _billingStatus,
    owing: _owing,
    finalizesAt: _finalizesAt,
    pricedAt: _pricedAt,
    finalizedAt: _finalizedAt,
    finalizationLoggedAt: _finalizationLoggedAt,
    paidAt: _paidAt,
    voidedAt: _voidedAt,
    uncollectibleAt: _uncollectibleAt,
    createdAt,
    updatedAt,
    currency = DEFAULT_CURRENCY,
    ...fields
  } = doc;
  const id = _id.toHexString();
  const life = lifeOf(doc);
  return {
    id,
    ...fields,
    currency,
    billingCycle: { startTime: iso(billingCycle.startTime), endTime: iso(billingCycle.endTime) },
    revenueBreakdown: loadBreakdown(
      revenueBreakdown,
      lineItems.flatMap((line) => lineTaxesOf(line.taxes)),
    ),
    dueDate: iso(dueDate),
    amount: fromMicros(amount),
    lineItems: lineItems.map(loadLineItem(id)),
    taxExempt: taxExempt ?? false,
    taxSummary: taxSummaryOf(lineItems.map((line) => ({ taxes: lineTaxesOf(line.taxes) }))).map(presentLineTax),
    ...(paymentInfo && { paymentInfo: loadPaymentInfo(paymentInfo, currency) }),
    status: life.status,
    number: life.number,
    billingStatus: billingStatusOf(life),
    amountPaid: fromMicros(life.amountPaid),
    amountCredited: fromMicros(life.amountCredited),
    amountDue: fromMicros(amountDueOf(life)),
    overdue: isOverdue(life, dueDate, now),
    finalizedAt: life.finalizedAt && iso(life.finalizedAt),
    voidedAt: life.voidedAt && iso(life.voidedAt),
    createdAt: iso(createdAt),
    updatedAt: iso(updatedAt),
  };
}

/** The fields of the invoice's life, as stored: the derived billingStatus and owing with them. */
export const lifeFields = (life: StoredInvoiceLife) => ({
  ...life.priced,
  status: life.status,
  number: life.number,
  changeCount: life.changeCount,
  amountPaid: life.amountPaid,
  amountCredited: life.amountCredited,
  billingStatus: billingStatusOf(life),
  owing: isOwing(life),
  finalizedAt: life.finalizedAt,
  finalizationLoggedAt: life.finalizationLoggedAt,
  paidAt: life.paidAt,
  voidedAt: life.voidedAt,
  ...(life.voidReason !== undefined && { voidReason: life.voidReason }),
  uncollectibleAt: life.uncollectibleAt,
  ...(life.latestPayment && {
    paymentInfo: {
      amount: life.latestPayment.amount,
      date: life.latestPayment.date,
      ...(life.latestPayment.paymentMethod !== undefined && { paymentMethod: life.latestPayment.paymentMethod }),
      ...(life.latestPayment.transactionId !== undefined && { transactionId: life.latestPayment.transactionId }),
      ...(life.latestPayment.note !== undefined && { note: life.latestPayment.note }),
    },
  }),
});
