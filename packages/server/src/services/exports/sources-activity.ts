import type { Event, ExportKind, Invoice } from "@billing/shared";
import { amountOf } from "../../presenters/money.js";
import type { CallScope } from "../call-scope.js";
import { columnsOf, cursorAfter, type ExportSource, keptQuery } from "./source.js";

/** A payments cursor: the last payment's recording instant and entry id. */
const paymentCursor = (at: Date, id: string) => `${at.toISOString()}|${id}`;
function readPaymentCursor(cursor: string | null): { at: Date; id: string } | undefined {
  if (cursor === null) return undefined;
  const split = cursor.indexOf("|");
  return { at: new Date(cursor.slice(0, split)), id: cursor.slice(split + 1) };
}

/** The invoices of a batch's payments, each read once by id (a batch names at most `limit` of them). */
async function invoicesById(call: CallScope, invoiceIds: string[]): Promise<Map<string, Invoice>> {
  const found = await Promise.all(
    [...new Set(invoiceIds)].map((invoiceId) => call.repositories.invoices.get(call.accountId, invoiceId)),
  );
  return new Map(found.flatMap((invoice) => (invoice ? [[invoice.id, invoice] as const] : [])));
}

const periodOf = ({ from, to }: { from: Date; to: Date }, cursor: string | null) => ({
  startTime: from.toISOString(),
  endTime: to.toISOString(),
  ...(cursor !== null && { cursor }),
});

/** A batch of events as rows; the last one's id is where the next batch starts, none when the batch is short. */
const batchOfEvents = (events: Event[], limit: number) => ({
  rows: events.map((event) => ({
    id: event.id,
    name: event.name,
    timestamp: event.timestamp,
    customerAlias: event.customerAlias,
    ref: event.ref,
    createdAt: event.createdAt,
    data: JSON.stringify(event.data),
  })),
  cursor: cursorAfter(events, limit),
});

/**
 * Payments, credit ledger entries and events: each read from an index in the window's order (recorded, written,
 * timestamp), one query kept open for the export (`keptQuery`), so a batch reads only documents of the window and
 * the cursor is where the last one stood.
 */
export const ACTIVITY_SOURCES: Record<Extract<ExportKind, "payments" | "ledger" | "events">, ExportSource> = {
  payments: {
    columns: columnsOf({
      id: "string",
      invoiceId: "string",
      invoiceNumber: "string",
      customerId: "string",
      currency: "string",
      amount: "money",
      date: "timestamp",
      recordedAt: "timestamp",
      paymentMethod: "string",
      transactionId: "string",
      note: "string",
    }),
    open: (call, window, cursor) =>
      keptQuery(
        (batchSize) =>
          call.repositories.invoiceChanges.paymentsIn(call.accountId, window, readPaymentCursor(cursor), batchSize),
        async (payments, limit) => {
          const invoices = await invoicesById(
            call,
            payments.map(({ invoiceId }) => invoiceId),
          );
          const rows = payments.map(({ invoiceId, at, payment }) => {
            const invoice = invoices.get(invoiceId);
            return {
              id: payment.paymentId,
              invoiceId,
              invoiceNumber: invoice?.number ?? null,
              customerId: invoice?.customerId ?? null,
              currency: invoice?.currency ?? null,
              amount: amountOf(payment.amount),
              date: payment.date.toISOString(),
              recordedAt: at.toISOString(),
              paymentMethod: payment.paymentMethod ?? null,
              transactionId: payment.transactionId ?? null,
              note: payment.note ?? null,
            };
          });
          const last = payments.at(-1);
          return { rows, cursor: payments.length < limit || !last ? null : paymentCursor(last.at, last.id) };
        },
      ),
  },
  ledger: {
    columns: columnsOf({
      id: "string",
      customerId: "string",
      createdAt: "timestamp",
      type: "string",
      currency: "string",
      amount: "money",
      balanceAfterEntry: "money",
      grantId: "string",
      invoiceId: "string",
      contractId: "string",
      effectiveAt: "timestamp",
      expiresAt: "timestamp",
      priority: "integer",
    }),
    open: (call, window, cursor) =>
      keptQuery(
        (batchSize) => call.repositories.credits.writtenIn(call.accountId, window, cursor ?? undefined, batchSize),
        (entries, limit) => ({
          rows: entries.map((entry) => ({
            id: entry.id,
            customerId: entry.customerId,
            createdAt: entry.createdAt,
            type: entry.type,
            currency: entry.currency,
            amount: entry.amount,
            balanceAfterEntry: entry.balanceAfterEntry,
            grantId: entry.grantId ?? null,
            invoiceId: entry.invoiceId ?? null,
            contractId: entry.contractId ?? null,
            effectiveAt: entry.effectiveAt ?? null,
            expiresAt: entry.expiresAt ?? null,
            priority: entry.priority ?? null,
          })),
          cursor: cursorAfter(entries, limit),
        }),
      ),
  },
  events: {
    columns: columnsOf({
      id: "string",
      name: "string",
      timestamp: "timestamp",
      customerAlias: "string",
      ref: "string",
      createdAt: "timestamp",
      data: "string",
    }),
    open: (call, window, cursor) =>
      keptQuery(
        (batchSize) => call.repositories.events.readPeriod(call.accountId, periodOf(window, cursor), batchSize),
        batchOfEvents,
      ),
  },
};
