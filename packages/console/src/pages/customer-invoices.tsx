import { useQuery } from "@tanstack/react-query";
import type { Outputs } from "../api.js";
import { type Column, DataTable } from "../components/data-table.js";
import { Day } from "../components/day.js";
import { Pager, useCursorPages } from "../components/paging.js";
import { Panel } from "../components/panel.js";
import { Empty, QueryStatus } from "../components/status.js";
import { formatMoney } from "../format.js";
import { Link } from "../router.js";
import { useSession } from "../session-context.js";

const PAGE_SIZE = 10;

type Invoice = Outputs["invoices"]["list"]["invoices"][number];

const INVOICE_COLUMNS: Column<Invoice>[] = [
  {
    name: "Invoice",
    cell: (invoice) => <Link to={`/invoices/${encodeURIComponent(invoice.id)}`}>{invoice.number ?? "Draft"}</Link>,
  },
  {
    name: "Cycle",
    cell: (invoice) => (
      <>
        <Day iso={invoice.billingCycle.startTime} /> – <Day iso={invoice.billingCycle.endTime} />
      </>
    ),
  },
  { name: "Status", cell: (invoice) => `${invoice.status}${invoice.overdue ? " · overdue" : ""}` },
  { name: "Total", numeric: true, cell: (invoice) => formatMoney(invoice.amount, invoice.currency) },
  { name: "Due", numeric: true, cell: (invoice) => formatMoney(invoice.amountDue, invoice.currency) },
];

export function CustomerInvoices({ customerId }: { customerId: string }) {
  const { api } = useSession();
  const pages = useCursorPages();
  const invoices = useQuery({
    queryKey: ["invoices", customerId, pages.cursor],
    queryFn: () => api.invoices.list.query({ customerId, limit: PAGE_SIZE, cursor: pages.cursor }),
  });
  return (
    <Panel id="invoices" title="Invoices">
      <QueryStatus query={invoices} what="invoices" />
      {invoices.data &&
        (invoices.data.invoices.length === 0 ? (
          <Empty>No invoices yet.</Empty>
        ) : (
          <>
            <DataTable rows={invoices.data.invoices} columns={INVOICE_COLUMNS} rowKey={(invoice) => invoice.id} />
            <Pager label="Invoices" pages={pages} nextCursor={invoices.data.nextCursor} total={invoices.data.total} />
          </>
        ))}
    </Panel>
  );
}
