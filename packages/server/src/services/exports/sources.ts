import type { ExportKind, Invoice } from "@billing/shared";
import type { ExportRow } from "../../domain/exports/format.js";
import { amountOf } from "../../presenters/money.js";
import type { CallScope } from "../call-scope.js";
import { completeInvoices } from "../invoices/changes.js";
import { batchByBatch, columnsOf, cursorAfter, type ExportSource, within } from "./source.js";
import { ACTIVITY_SOURCES } from "./sources-activity.js";

/** The account's invoices in the order stored, a page a batch, those issued (finalized) in the window kept. */
async function invoicesIn(call: CallScope, window: { from: Date; to: Date }, cursor: string | null, limit: number) {
  const page = await call.repositories.invoices.list(call.accountId, { limit, ...(cursor && { cursor }) });
  const invoices = (await completeInvoices(call, page.items)).filter((invoice) => within(invoice.finalizedAt, window));
  return { invoices, cursor: page.nextCursor ?? null };
}

const invoiceRow = (invoice: Invoice): ExportRow => ({
  id: invoice.id,
  number: invoice.number ?? null,
  customerId: invoice.customerId,
  contractId: invoice.contractId,
  currency: invoice.currency,
  status: invoice.status,
  billingStatus: invoice.billingStatus,
  finalizedAt: invoice.finalizedAt ?? null,
  voidedAt: invoice.voidedAt ?? null,
  dueDate: invoice.dueDate,
  cycleStart: invoice.billingCycle.startTime,
  cycleEnd: invoice.billingCycle.endTime,
  subtotal: invoice.revenueBreakdown.subtotal,
  discount: invoice.revenueBreakdown.discount,
  tax: invoice.revenueBreakdown.tax,
  total: invoice.amount,
  amountPaid: invoice.amountPaid,
  amountCredited: invoice.amountCredited,
  amountDue: invoice.amountDue,
});

const invoiceLineRows = (invoice: Invoice): ExportRow[] =>
  invoice.lineItems.map((line, index) => ({
    invoiceId: invoice.id,
    invoiceNumber: invoice.number ?? null,
    invoiceStatus: invoice.status,
    currency: invoice.currency,
    finalizedAt: invoice.finalizedAt ?? null,
    line: index + 1,
    name: line.name,
    kind: line.kind,
    catalogProductId: line.catalogProductId ?? null,
    quantity: line.quantity ?? null,
    unitPrice: line.unitPrice ?? null,
    subtotal: line.revenueBreakdown.subtotal,
    discount: line.revenueBreakdown.discount,
    tax: line.revenueBreakdown.tax,
    total: line.revenueBreakdown.total,
  }));

const INVOICE_COLUMNS = columnsOf({
  id: "string",
  number: "string",
  customerId: "string",
  contractId: "string",
  currency: "string",
  status: "string",
  billingStatus: "string",
  finalizedAt: "timestamp",
  voidedAt: "timestamp",
  dueDate: "timestamp",
  cycleStart: "timestamp",
  cycleEnd: "timestamp",
  subtotal: "money",
  discount: "money",
  tax: "money",
  total: "money",
  amountPaid: "money",
  amountCredited: "money",
  amountDue: "money",
});

const LINE_COLUMNS = columnsOf({
  invoiceId: "string",
  invoiceNumber: "string",
  invoiceStatus: "string",
  currency: "string",
  finalizedAt: "timestamp",
  line: "integer",
  name: "string",
  kind: "string",
  catalogProductId: "string",
  quantity: "number",
  unitPrice: "money",
  subtotal: "money",
  discount: "money",
  tax: "money",
  total: "money",
});

/** Each kind built: its columns and how a batch is read (docs/decisions.md, "Exports"). */
export const EXPORT_SOURCES: Record<ExportKind, ExportSource> = {
  ...ACTIVITY_SOURCES,
  invoices: {
    columns: INVOICE_COLUMNS,
    open: batchByBatch(async (call, window, cursor, limit) => {
      const { invoices, cursor: next } = await invoicesIn(call, window, cursor, limit);
      return { rows: invoices.map(invoiceRow), cursor: next };
    }),
  },
  invoice_lines: {
    columns: LINE_COLUMNS,
    open: batchByBatch(async (call, window, cursor, limit) => {
      const { invoices, cursor: next } = await invoicesIn(call, window, cursor, limit);
      return { rows: invoices.flatMap(invoiceLineRows), cursor: next };
    }),
  },
  credit_notes: {
    columns: columnsOf({
      id: "string",
      number: "string",
      invoiceId: "string",
      customerId: "string",
      currency: "string",
      amount: "money",
      reason: "string",
      refund: "string",
      createdAt: "timestamp",
    }),
    open: batchByBatch(async (call, window, cursor, limit) => {
      const page = await call.repositories.creditNotes.list(call.accountId, { limit, ...(cursor && { cursor }) });
      const rows = page.items
        .filter((note) => within(note.createdAt, window))
        .map((note) => ({
          id: note.id,
          number: note.number,
          invoiceId: note.invoiceId,
          customerId: note.customerId,
          currency: note.currency,
          amount: note.amount,
          reason: note.reason,
          refund: note.refund,
          createdAt: note.createdAt,
        }));
      return { rows, cursor: page.nextCursor ?? null };
    }),
  },
  revenue: {
    columns: columnsOf({
      scheduleId: "string",
      invoiceId: "string",
      customerId: "string",
      currency: "string",
      billedAt: "timestamp",
      line: "integer",
      mode: "string",
      start: "timestamp",
      end: "timestamp",
      amount: "money",
    }),
    open: batchByBatch(async (call, window, cursor, limit) => {
      const schedules = await call.repositories.revenueSchedules.page(call.accountId, cursor ?? undefined, limit);
      const rows = schedules
        .filter((schedule) => within(schedule.billedAt.toISOString(), window))
        .flatMap((schedule) =>
          schedule.lines.map((line, index) => ({
            scheduleId: schedule.id,
            invoiceId: schedule.invoiceId,
            customerId: schedule.customerId,
            currency: schedule.currency,
            billedAt: schedule.billedAt.toISOString(),
            line: index + 1,
            mode: line.mode,
            start: line.start.toISOString(),
            end: line.end.toISOString(),
            amount: amountOf(line.micros),
          })),
        );
      return { rows, cursor: cursorAfter(schedules, limit) };
    }),
  },
};
