import { useQuery } from "@tanstack/react-query";
import { Pager, useCursorPages } from "../components/paging.js";
import { Empty, QueryStatus } from "../components/status.js";
import { formatDate, formatMoney } from "../format.js";
import { Link } from "../router.js";
import { useSession } from "../session-context.js";

const PAGE_SIZE = 10;

export function CustomerInvoices({ customerId }: { customerId: string }) {
  const { api } = useSession();
  const pages = useCursorPages();
  const invoices = useQuery({
    queryKey: ["invoices", customerId, pages.cursor],
    queryFn: () => api.invoices.list.query({ customerId, limit: PAGE_SIZE, cursor: pages.cursor }),
  });
  return (
    <section className="panel" aria-labelledby="invoices-heading">
      <h2 id="invoices-heading">Invoices</h2>
      <QueryStatus query={invoices} what="invoices" />
      {invoices.data &&
        (invoices.data.invoices.length === 0 ? (
          <Empty>No invoices yet.</Empty>
        ) : (
          <>
            <table>
              <thead>
                <tr>
                  <th scope="col">Invoice</th>
                  <th scope="col">Cycle</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="number">
                    Total
                  </th>
                  <th scope="col" className="number">
                    Due
                  </th>
                </tr>
              </thead>
              <tbody>
                {invoices.data.invoices.map((invoice) => (
                  <tr key={invoice.id}>
                    <td>
                      <Link to={`/invoices/${encodeURIComponent(invoice.id)}`}>{invoice.number ?? "Draft"}</Link>
                    </td>
                    <td>
                      {formatDate(invoice.billingCycle.startTime)} – {formatDate(invoice.billingCycle.endTime)}
                    </td>
                    <td>
                      {invoice.status}
                      {invoice.overdue && " · overdue"}
                    </td>
                    <td className="number">{formatMoney(invoice.amount, invoice.currency)}</td>
                    <td className="number">{formatMoney(invoice.amountDue, invoice.currency)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager label="Invoices" pages={pages} nextCursor={invoices.data.nextCursor} total={invoices.data.total} />
          </>
        ))}
    </section>
  );
}
