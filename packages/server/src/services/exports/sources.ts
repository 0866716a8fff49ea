import type { ExportKind, Invoice } from "@billing/shared";
import type { ExportRow } from "../../domain/exports/format.js";
import { amountOf } from "../../presenters/money.js";
import type { CallScope } from "../call-scope.js";
import { completeInvoices } from "../invoices/changes.js";

/** One batch read of a source: its rows inside the window, and where to read on from (null: the end). */
export interface SourceBatch {
  rows: ExportRow[];
  cursor: string | null;
}

export interface ExportSource {
  columns: readonly string[];
  read(call: CallScope, window: { from: Date; to: Date }, cursor: string | null, limit: number): Promise<SourceBatch>;
}

const within = (at: string | null | undefined, { from, to }: { from: Date; to: Date }) =>
  at != null && Date.parse(at) >= from.getTime() && Date.parse(at) < to.getTime();

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

const columnsOf = (row: ExportRow) => Object.keys(row);
const sampleInvoice = {
  lineItems: [{ revenueBreakdown: {} }],
  revenueBreakdown: {},
  billingCycle: {},
} as unknown as Invoice;

/** Each kind built: its columns and how a batch is read (docs/decisions.md, "Exports"). */
export const EXPORT_SOURCES: Partial<Record<ExportKind, ExportSource>> = {
  invoices: {
    columns: columnsOf(invoiceRow(sampleInvoice)),
    async read(call, window, cursor, limit) {
      const { invoices, cursor: next } = await invoicesIn(call, window, cursor, limit);
      return { rows: invoices.map(invoiceRow), cursor: next };
    },
  },
  invoice_lines: {
    columns: columnsOf(invoiceLineRows(sampleInvoice)[0] ?? {}),
    async read(call, window, cursor, limit) {
      const { invoices, cursor: next } = await invoicesIn(call, window, cursor, limit);
      return { rows: invoices.flatMap(invoiceLineRows), cursor: next };
    },
  },
  credit_notes: {
    columns: ["id", "number", "invoiceId", "customerId", "currency", "amount", "reason", "refund", "createdAt"],
    async read(call, window, cursor, limit) {
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
    },
  },
  revenue: {
    columns: [
      "scheduleId",
      "invoiceId",
      "customerId",
      "currency",
      "billedAt",
      "line",
      "mode",
      "start",
      "end",
      "amount",
    ],
    async read(call, window, cursor, limit) {
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
      return { rows, cursor: schedules.length < limit ? null : (schedules.at(-1)?.id ?? null) };
    },
  },
};
