import {
  hasAtMostSixDecimals,
  type InvoiceDraft,
  MICROS_PER_UNIT,
  type RevenueBreakdown,
  toMicros,
} from "@billing/shared";
import { ObjectId } from "mongodb";
import type { LastOfEach } from "../../src/db/last-of-each.js";
import type { BreakdownInMicros, InvoiceDraftInMicros } from "../../src/domain/billing/pipeline.js";
import { asMicros } from "../../src/domain/money/micros.js";
import { newId, type TestServer } from "./server.js";

/** A revenue breakdown that is all subtotal, unless `fields` says otherwise. */
export const breakdown = (total: number, fields: Partial<RevenueBreakdown> = {}) => ({
  total,
  subtotal: total,
  overage: 0,
  discount: 0,
  creditsUsed: 0,
  tax: 0,
  taxInclusive: 0,
  ...fields,
});

/**
 * A valid minimal draft of 10 USD for `month` of 2024: no paymentInfo, no optional line item fields, and a customer
 * and contract that name nothing stored, unless `fields` says otherwise.
 */
export const invoiceDraft = (fields: Partial<InvoiceDraft> = {}, month = 1): InvoiceDraft => ({
  customerId: newId(),
  contractId: newId(),
  currency: "USD",
  name: `Invoice ${month}`,
  billingCycle: {
    startTime: new Date(Date.UTC(2024, month - 1, 1)).toISOString(),
    endTime: new Date(Date.UTC(2024, month, 1)).toISOString(),
  },
  revenueBreakdown: breakdown(10),
  billingStatus: "None",
  dueDate: new Date(Date.UTC(2024, month, 31)).toISOString(),
  amount: 10,
  lineItems: [{ name: "Seat", kind: "ONE_TIME", revenueBreakdown: breakdown(10), taxes: [] }],
  taxExempt: false,
  taxSummary: [],
  ...fields,
});

/**
 * A decimal amount in micro-units: exact when it has at most 6 decimals; otherwise the fraction of a micro-unit it
 * is, which the repository must refuse.
 */
const microsOf = (amount: number) =>
  asMicros(hasAtMostSixDecimals(amount) ? toMicros(amount) : amount * MICROS_PER_UNIT);

const breakdownInMicros = (breakdown: RevenueBreakdown) =>
  Object.fromEntries(Object.entries(breakdown).map(([key, amount]) => [key, microsOf(amount)])) as BreakdownInMicros;

/** A draft as a test states it (the API's decimals), as the billing engine hands it to the repository. */
const draftInMicros = ({
  revenueBreakdown,
  amount,
  lineItems,
  taxSummary: _summary,
  ...fields
}: InvoiceDraft): InvoiceDraftInMicros => ({
  ...fields,
  revenueBreakdown: breakdownInMicros(revenueBreakdown),
  amountMicros: microsOf(amount),
  lineItems: lineItems.map(
    ({ quantity, unitPrice, tiers, packages, revenueBreakdown: lineBreakdown, taxes, adjusts, ...line }) => ({
      ...line,
      ...(adjusts && {
        adjusts: {
          invoiceId: adjusts.invoiceId,
          number: adjusts.number,
          product: adjusts.product,
          quantityMicros: BigInt(microsOf(adjusts.quantity)),
        },
      }),
      ...(quantity !== undefined && { quantityMicros: BigInt(microsOf(quantity)) }),
      ...(unitPrice !== undefined && { unitPriceMicros: microsOf(unitPrice) }),
      ...(tiers && {
        tiers: tiers.map((tier) => ({
          upToMicros: tier.upTo === null ? null : microsOf(tier.upTo),
          quantityMicros: BigInt(microsOf(tier.quantity)),
          unitPriceMicros: microsOf(tier.unitPrice),
          flatPriceMicros: microsOf(tier.flatPrice),
          amountMicros: microsOf(tier.amount),
        })),
      }),
      ...(packages && {
        packages: {
          count: BigInt(packages.count),
          sizeMicros: microsOf(packages.size),
          priceMicros: microsOf(packages.price),
        },
      }),
      revenueBreakdown: breakdownInMicros(lineBreakdown),
      taxes: taxes.map(({ taxableAmount, amount: taxAmount, ...rate }) => ({
        ...rate,
        taxableMicros: microsOf(taxableAmount),
        amountMicros: microsOf(taxAmount),
      })),
    }),
  ),
});

/**
 * Stores a draft as the billing engine does, through the repository: no route writes invoices, and the engine makes
 * only the invoices its contracts produce, not every field (paymentInfo, each line item kind) a reading test needs.
 */
export const insertInvoice = (server: TestServer, accountId: string, draft: InvoiceDraft) =>
  server.service.repositories.invoices.insert(accountId, draftInMicros(draft), {
    id: new ObjectId(),
    // One invoice per contract and cycle start, priced on the meters its lines name.
    cycleKey: new Date(draft.billingCycle.startTime).toISOString(),
    meterKeys: draft.lineItems.flatMap((line) => (line.catalogProductId ? [line.catalogProductId] : [])),
  });

/** A billing batch's drafts inserted together (insertMany), each under its own new id, with the caller's guesses. */
export const insertInvoices = (server: TestServer, accountId: string, drafts: InvoiceDraft[], guesses?: LastOfEach) =>
  server.service.repositories.invoices.insertMany(
    accountId,
    drafts.map((draft) => ({
      draft: draftInMicros(draft),
      placement: { id: new ObjectId(), cycleKey: new Date(draft.billingCycle.startTime).toISOString(), meterKeys: [] },
    })),
    guesses,
  );
