import { ObjectId, type Db, type Filter } from "mongodb";
import {
  fromMicros,
  invoiceDraft,
  toMicros,
  type Invoice,
  type InvoiceDraft,
  type PaymentInfo,
  type RevenueBreakdown,
} from "@billing/shared";
import { findOwned } from "../db/find-owned.js";
import { iso, toObjectId } from "../db/ids.js";
import { findPage, type PageRequest } from "../db/pagination.js";
import { isDuplicateKeyError } from "../errors.js";

/** Money is stored as integer micro-USD under the same field names, so sums never drift. */
type Micros = number;
type StoredBreakdown = Record<keyof RevenueBreakdown, Micros>;
type DraftLineItem = InvoiceDraft["lineItems"][number];

type LineItemDoc = Omit<DraftLineItem, "revenueBreakdown" | "unitPrice"> & { revenueBreakdown: StoredBreakdown; unitPrice?: Micros };
type PaymentInfoDoc = Omit<PaymentInfo, "date" | "amount"> & { date?: Date; amount?: Micros };

/** lineItems[].invoiceId is not stored: it is always the invoice's own `_id`. */
type InvoiceDoc = Omit<InvoiceDraft, "billingCycle" | "revenueBreakdown" | "dueDate" | "amount" | "lineItems" | "paymentInfo"> & {
  _id: ObjectId;
  accountId: string;
  billingCycle: { startTime: Date; endTime: Date };
  revenueBreakdown: StoredBreakdown;
  dueDate: Date;
  amount: Micros;
  lineItems: LineItemDoc[];
  paymentInfo?: PaymentInfoDoc;
  createdAt: Date;
  updatedAt: Date;
};

export interface InvoiceListRequest extends PageRequest {
  customerId?: string | undefined;
  contractId?: string | undefined;
}

const convertBreakdown = <From, To>(breakdown: Record<keyof RevenueBreakdown, From>, convert: (amount: From) => To) =>
  Object.fromEntries(Object.entries(breakdown).map(([key, amount]) => [key, convert(amount as From)])) as Record<keyof RevenueBreakdown, To>;

// Optional fields are spread in only when present: the driver would store an `undefined` as null.
const storeLineItem = ({ revenueBreakdown, unitPrice, ...fields }: DraftLineItem): LineItemDoc => ({
  ...fields,
  revenueBreakdown: convertBreakdown(revenueBreakdown, toMicros),
  ...(unitPrice !== undefined && { unitPrice: toMicros(unitPrice) }),
});

const loadLineItem = (invoiceId: string) => ({ revenueBreakdown, unitPrice, ...fields }: LineItemDoc) => ({
  invoiceId,
  ...fields,
  revenueBreakdown: convertBreakdown(revenueBreakdown, fromMicros),
  ...(unitPrice !== undefined && { unitPrice: fromMicros(unitPrice) }),
});

const storePaymentInfo = ({ date, amount, ...fields }: PaymentInfo): PaymentInfoDoc => ({
  ...fields,
  ...(date !== undefined && { date: new Date(date) }),
  ...(amount !== undefined && { amount: toMicros(amount) }),
});

const loadPaymentInfo = ({ date, amount, ...fields }: PaymentInfoDoc): PaymentInfo => ({
  ...fields,
  ...(date !== undefined && { date: iso(date) }),
  ...(amount !== undefined && { amount: fromMicros(amount) }),
});

function toDoc(accountId: string, draft: InvoiceDraft, _id: ObjectId): InvoiceDoc {
  const { billingCycle, revenueBreakdown, dueDate, amount, lineItems, paymentInfo, ...fields } = draft;
  const now = new Date();
  return {
    _id,
    accountId,
    ...fields,
    billingCycle: { startTime: new Date(billingCycle.startTime), endTime: new Date(billingCycle.endTime) },
    revenueBreakdown: convertBreakdown(revenueBreakdown, toMicros),
    dueDate: new Date(dueDate),
    amount: toMicros(amount),
    lineItems: lineItems.map(storeLineItem),
    ...(paymentInfo && { paymentInfo: storePaymentInfo(paymentInfo) }),
    createdAt: now,
    updatedAt: now,
  };
}

function toInvoice(doc: InvoiceDoc): Invoice {
  const { _id, billingCycle, revenueBreakdown, dueDate, amount, lineItems, paymentInfo, createdAt, updatedAt, ...fields } = doc;
  const id = _id.toHexString();
  return {
    id,
    ...fields,
    billingCycle: { startTime: iso(billingCycle.startTime), endTime: iso(billingCycle.endTime) },
    revenueBreakdown: convertBreakdown(revenueBreakdown, fromMicros),
    dueDate: iso(dueDate),
    amount: fromMicros(amount),
    lineItems: lineItems.map(loadLineItem(id)),
    ...(paymentInfo && { paymentInfo: loadPaymentInfo(paymentInfo) }),
    createdAt: iso(createdAt),
    updatedAt: iso(updatedAt),
  };
}

export function createInvoiceRepository(db: Db) {
  const invoices = db.collection<InvoiceDoc>("invoices");

  return {
    async ensureIndexes() {
      // Each contract's billing cycle is invoiced once, however often (or concurrently) the engine runs.
      await invoices.createIndex({ accountId: 1, contractId: 1, "billingCycle.startTime": 1 }, { unique: true });
      await invoices.createIndex({ accountId: 1, _id: 1 });
      await invoices.createIndex({ accountId: 1, customerId: 1, _id: 1 });
      await invoices.createIndex({ accountId: 1, contractId: 1, _id: 1 });
    },

    /**
     * For the billing engine. Idempotent per (contract, billing cycle start): when that cycle already has an
     * invoice, nothing is written and the existing invoice comes back with `created: false`. The draft is
     * validated here, so no caller can store amounts the money rule refuses.
     */
    /** `id`: the billing engine derives it from the contract cycle, so that every step of a run can name the invoice. */
    async insert(accountId: string, draft: InvoiceDraft, id = new ObjectId()): Promise<{ invoice: Invoice; created: boolean }> {
      const doc = toDoc(accountId, invoiceDraft.parse(draft), id);
      try {
        await invoices.insertOne(doc);
        return { invoice: toInvoice(doc), created: true };
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        const cycle = { accountId, contractId: doc.contractId, "billingCycle.startTime": doc.billingCycle.startTime };
        const existing = await invoices.findOne(cycle as Filter<InvoiceDoc>);
        if (!existing) throw error;
        return { invoice: toInvoice(existing), created: false };
      }
    },

    async get(accountId: string, invoiceId: string): Promise<Invoice | undefined> {
      const doc = await findOwned(invoices, accountId, toObjectId(invoiceId));
      return doc ? toInvoice(doc) : undefined;
    },

    list(accountId: string, { customerId, contractId, ...page }: InvoiceListRequest) {
      const filter = {
        accountId,
        ...(customerId !== undefined && { customerId }),
        ...(contractId !== undefined && { contractId }),
      } as Filter<InvoiceDoc>;
      return findPage(invoices, filter, page, toInvoice);
    },
  };
}
export type InvoiceRepository = ReturnType<typeof createInvoiceRepository>;
