import { useQuery } from "@tanstack/react-query";
import { Pager, useCursorPages } from "../components/paging.js";
import { Empty, QueryStatus } from "../components/status.js";
import { formatDate, formatMoney } from "../format.js";
import { Link } from "../router.js";
import { useSession } from "../session-context.js";
import { InvoiceActions } from "./invoice-actions.js";
import { type Invoice, InvoiceLines, InvoiceTotals } from "./invoice-lines.js";

const CREDIT_NOTE_PAGE_SIZE = 10;

function Payments({ invoice }: { invoice: Invoice }) {
  const { api } = useSession();
  const payments = useQuery({
    queryKey: ["invoice", invoice.id, "payments"],
    queryFn: () => api.invoicePayments.payments.query({ invoiceId: invoice.id }),
  });
  return (
    <section className="panel" aria-labelledby="payments-heading">
      <h2 id="payments-heading">Payments</h2>
      <QueryStatus query={payments} what="payments" />
      {payments.data &&
        (payments.data.payments.length === 0 ? (
          <Empty>No payments recorded.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">Method</th>
                <th scope="col" className="number">
                  Amount
                </th>
              </tr>
            </thead>
            <tbody>
              {payments.data.payments.map((payment) => (
                <tr key={payment.id}>
                  <td>{formatDate(payment.date)}</td>
                  <td>{payment.paymentMethod ?? "—"}</td>
                  <td className="number">{formatMoney(payment.amount, invoice.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </section>
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
    <section className="panel" aria-labelledby="credit-notes-heading">
      <h2 id="credit-notes-heading">Credit notes</h2>
      <QueryStatus query={notes} what="credit notes" />
      {notes.data &&
        (notes.data.creditNotes.length === 0 ? (
          <Empty>No credit notes.</Empty>
        ) : (
          <>
            <table>
              <thead>
                <tr>
                  <th scope="col">Number</th>
                  <th scope="col">Issued</th>
                  <th scope="col" className="number">
                    Amount
                  </th>
                </tr>
              </thead>
              <tbody>
                {notes.data.creditNotes.map((note) => (
                  <tr key={note.id}>
                    <td>{note.number}</td>
                    <td>{formatDate(note.createdAt)}</td>
                    <td className="number">{formatMoney(note.amount, invoice.currency)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager label="Credit notes" pages={pages} nextCursor={notes.data.nextCursor} total={notes.data.total} />
          </>
        ))}
    </section>
  );
}

export function InvoicePage({ invoiceId }: { invoiceId: string }) {
  const { api } = useSession();
  const found = useQuery({ queryKey: ["invoice", invoiceId], queryFn: () => api.invoices.get.query({ invoiceId }) });
  if (!found.data) return <QueryStatus query={found} what="the invoice" />;
  const { invoice } = found.data;
  return (
    <section>
      <p>
        <Link to={`/customers/${encodeURIComponent(invoice.customerId)}`}>← The customer</Link>
      </p>
      <h1>
        {invoice.number ?? "Draft invoice"}{" "}
        <span className={`badge ${invoice.status.toLowerCase()}`}>{invoice.status}</span>
        {invoice.overdue && <span className="badge overdue">OVERDUE</span>}
      </h1>
      <dl className="facts">
        <dt>Name</dt>
        <dd>{invoice.name}</dd>
        <dt>Cycle</dt>
        <dd>
          {formatDate(invoice.billingCycle.startTime)} – {formatDate(invoice.billingCycle.endTime)}
        </dd>
        <dt>Due</dt>
        <dd>{formatDate(invoice.dueDate)}</dd>
        <dt>Payment</dt>
        <dd>{invoice.billingStatus}</dd>
      </dl>
      <div className="grid">
        <section className="panel wide" aria-labelledby="lines-heading">
          <h2 id="lines-heading">Lines and totals</h2>
          <InvoiceLines invoice={invoice} />
          <InvoiceTotals invoice={invoice} />
        </section>
        <InvoiceActions invoice={invoice} />
        <Payments invoice={invoice} />
        <CreditNotes invoice={invoice} />
      </div>
    </section>
  );
}
