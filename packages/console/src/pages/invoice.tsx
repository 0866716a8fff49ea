import { useQuery } from "@tanstack/react-query";
import type { Outputs } from "../api.js";
import { CustomerName, PAYMENT_STATES } from "../components/customer-name.js";
import { type Column, DataTable } from "../components/data-table.js";
import { Day } from "../components/day.js";
import { DocumentButton } from "../components/document-button.js";
import { Pager, useCursorPages } from "../components/paging.js";
import { Panel } from "../components/panel.js";
import { Empty, QueryStatus } from "../components/status.js";
import { formatDate, formatMoney } from "../format.js";
import { Link } from "../router.js";
import { useSession } from "../session-context.js";
import { CreditNoteForm } from "./credit-note-form.js";
import { InvoiceActions } from "./invoice-actions.js";
import { InvoiceCollection } from "./invoice-collection.js";
import { type Invoice, InvoiceLines, InvoiceTotals } from "./invoice-lines.js";

const CREDIT_NOTE_PAGE_SIZE = 10;

type Payment = Outputs["invoicePayments"]["payments"]["payments"][number];
type CreditNote = Outputs["creditNotes"]["list"]["creditNotes"][number];

/** A payment or credit note moves money of its invoice's currency. */
const paymentColumns = (invoice: Invoice): Column<Payment>[] => [
  { name: "Received", cell: (payment) => <Day iso={payment.date} /> },
  { name: "Method", cell: (payment) => payment.paymentMethod ?? "—" },
  { name: "Transaction", cell: (payment) => payment.transactionId ?? "—" },
  { name: "Amount", numeric: true, cell: (payment) => formatMoney(payment.amount, invoice.currency) },
];

const REASONS: Record<CreditNote["reason"], string> = {
  DUPLICATE: "Duplicate",
  PRODUCT_UNSATISFACTORY: "Product unsatisfactory",
  ORDER_CHANGE: "Order change",
  OTHER: "Other",
  USAGE_CORRECTION: "Usage corrected",
};

/** What a note did with its amount: taken off what the invoice owes, or given back to the customer as credits. */
const REFUNDS: Record<CreditNote["refund"], string> = {
  OFFSET: "Taken off what is owed",
  CREDITS: "Given back as credits",
  PROVIDER: "Refunded to the card",
};

const creditNoteColumns = (invoice: Invoice): Column<CreditNote>[] => [
  { name: "Number", cell: (note) => <span className="nowrap">{note.number}</span> },
  { name: "Issued", cell: (note) => <Day iso={note.createdAt} /> },
  { name: "Reason", cell: (note) => REASONS[note.reason] },
  { name: "Refund", cell: (note) => REFUNDS[note.refund] },
  { name: "Amount", numeric: true, cell: (note) => formatMoney(note.amount, invoice.currency) },
  {
    name: "Document",
    header: <span className="visually-hidden">Document</span>,
    cell: (note) => (
      <DocumentButton
        path={`/credit-notes/${encodeURIComponent(note.id)}/pdf`}
        label="PDF"
        name={`PDF of ${note.number}`}
      />
    ),
  },
];

function Payments({ invoice }: { invoice: Invoice }) {
  const { api } = useSession();
  const payments = useQuery({
    queryKey: ["invoice", invoice.id, "payments"],
    queryFn: () => api.invoicePayments.payments.query({ invoiceId: invoice.id }),
  });
  return (
    <Panel id="payments" title="Payments">
      <QueryStatus query={payments} what="payments" />
      {payments.data &&
        (payments.data.payments.length === 0 ? (
          <Empty>No payments recorded.</Empty>
        ) : (
          <DataTable rows={payments.data.payments} columns={paymentColumns(invoice)} rowKey={(payment) => payment.id} />
        ))}
    </Panel>
  );
}

function CreditNotes({ invoice }: { invoice: Invoice }) {
  const { api } = useSession();
  const pages = useCursorPages();
  const notes = useQuery({
    queryKey: ["invoice", invoice.id, "credit-notes", pages.cursor],
    queryFn: () =>
      api.creditNotes.list.query({ invoiceId: invoice.id, limit: CREDIT_NOTE_PAGE_SIZE, cursor: pages.cursor }),
  });
  return (
    <Panel id="credit-notes" title="Credit notes">
      <QueryStatus query={notes} what="credit notes" />
      {invoice.status === "FINALIZED" && <CreditNoteForm invoice={invoice} />}
      {notes.data &&
        (notes.data.creditNotes.length === 0 ? (
          <Empty>No credit notes.</Empty>
        ) : (
          <>
            <DataTable rows={notes.data.creditNotes} columns={creditNoteColumns(invoice)} rowKey={(note) => note.id} />
            {notes.data.creditNotes.some((note) => note.refund === "CREDITS") && (
              <p className="muted">
                A note given back as credits adds to the customer's credit balance: it is not taken off this invoice's
                amount due, so "Credited" in the totals does not count it.
              </p>
            )}
            <Pager label="Credit notes" pages={pages} nextCursor={notes.data.nextCursor} total={notes.data.total} />
          </>
        ))}
    </Panel>
  );
}

export function InvoicePage({ invoiceId }: { invoiceId: string }) {
  const { api } = useSession();
  const found = useQuery({ queryKey: ["invoice", invoiceId], queryFn: () => api.invoices.get.query({ invoiceId }) });
  if (!found.data) return <QueryStatus query={found} what="the invoice" />;
  const { invoice } = found.data;
  const owed = invoice.status === "FINALIZED";
  return (
    <section>
      <p>
        <Link to={`/customers/${encodeURIComponent(invoice.customerId)}`}>← The customer</Link>
      </p>
      <h1>
        {invoice.number ?? "Draft invoice"}{" "}
        <span className={`badge ${invoice.status.toLowerCase()}`}>{invoice.status}</span>
        {owed && <span className="badge">{PAYMENT_STATES[invoice.billingStatus]}</span>}
        {invoice.overdue && <span className="badge overdue">OVERDUE</span>}
      </h1>
      <p className="figures">
        <span className="figure">{formatMoney(invoice.amountDue, invoice.currency)}</span> due
        {owed && invoice.amountDue > 0 && ` on ${formatDate(invoice.dueDate)}`}
        {" · "}
        {formatMoney(invoice.revenueBreakdown.total, invoice.currency)} total
      </p>
      <dl className="facts">
        <dt>Customer</dt>
        <dd>
          <CustomerName customerId={invoice.customerId} />
        </dd>
        <dt>Name</dt>
        <dd>{invoice.name}</dd>
        <dt>Issued</dt>
        <dd>{invoice.finalizedAt ? formatDate(invoice.finalizedAt) : "Not yet: a draft"}</dd>
        <dt>Cycle</dt>
        <dd>
          {formatDate(invoice.billingCycle.startTime)} – {formatDate(invoice.billingCycle.endTime)}
        </dd>
        <dt>Due</dt>
        <dd>{formatDate(invoice.dueDate)}</dd>
        {invoice.voidedAt && (
          <>
            <dt>Voided</dt>
            <dd>
              {formatDate(invoice.voidedAt)}
              {invoice.voidReason ? `: ${invoice.voidReason}` : ", no reason given"}
            </dd>
          </>
        )}
      </dl>
      <div className="grid">
        <Panel id="lines" title="Lines and totals" wide>
          <InvoiceLines invoice={invoice} />
          <InvoiceTotals invoice={invoice} />
        </Panel>
        <InvoiceActions invoice={invoice} />
        <InvoiceCollection invoice={invoice} />
        <Payments invoice={invoice} />
        <CreditNotes invoice={invoice} />
      </div>
    </section>
  );
}
