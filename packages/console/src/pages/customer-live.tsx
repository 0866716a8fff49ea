import { type Column, DataTable } from "../components/data-table.js";
import { Panel } from "../components/panel.js";
import { Empty, Loading } from "../components/status.js";
import { type StreamedState, useCustomerStream } from "../customer-stream.js";
import { formatDateTime, formatMoney, formatQuantity } from "../format.js";
import { Link } from "../router.js";

type Usage = StreamedState["usage"][number];
type Reservation = StreamedState["reservations"][number];
type Invoice = StreamedState["invoices"][number];

const USAGE_COLUMNS: Column<Usage>[] = [
  { name: "Meter", cell: (usage) => <code>{usage.meterKey}</code> },
  { name: "Used this cycle", numeric: true, cell: (usage) => formatQuantity(usage.usage) },
  { name: "Limit", numeric: true, cell: (usage) => (usage.limit === null ? "none" : formatQuantity(usage.limit)) },
];

const RESERVATION_COLUMNS: Column<Reservation>[] = [
  { name: "Reservation", cell: (reservation) => <code>{reservation.id}</code> },
  { name: "Of", cell: (reservation) => reservation.meterKey ?? `${reservation.currency} credits` },
  {
    name: "Held",
    numeric: true,
    cell: ({ amount, currency }) => (currency ? formatMoney(amount, currency) : formatQuantity(amount)),
  },
  { name: "Expires", cell: (reservation) => formatDateTime(reservation.expiresAt) },
];

const INVOICE_COLUMNS: Column<Invoice>[] = [
  {
    name: "Invoice",
    cell: (invoice) => <Link to={`/invoices/${encodeURIComponent(invoice.id)}`}>{invoice.number ?? "Draft"}</Link>,
  },
  { name: "Status", cell: (invoice) => `${invoice.status} · ${invoice.billingStatus}` },
  { name: "Due", numeric: true, cell: (invoice) => formatQuantity(invoice.amountDue) },
];

/** The newest invoices the panel shows (the stream sends the first 100, oldest first). */
const NEWEST_INVOICES = 5;

/**
 * The customer's usage, credit balance, open reservations and invoices as the stream sends them
 * (`GET /customers/{customerId}/stream`): they change on the page as they change in the service, without a reload.
 */
export function CustomerLive({ customerId }: { customerId: string }) {
  const { state, live } = useCustomerStream(customerId);
  return (
    <Panel id="live" title="Live" wide>
      <p className="muted" role="status">
        {live ? "● Live: changes show within a second" : "○ Connecting…"}
      </p>
      {!state ? (
        <Loading what="the live state" />
      ) : (
        <div className="grid">
          <div>
            <h3>Usage this cycle</h3>
            {state.usage.length === 0 ? (
              <Empty>No metered contract</Empty>
            ) : (
              <DataTable rows={state.usage} columns={USAGE_COLUMNS} rowKey={(usage) => usage.meterKey} />
            )}
            <h3>Credit balance</h3>
            {state.balances.map(({ currency, balance }) => (
              <p key={currency} className="figure" data-balance={currency}>
                {formatMoney(balance, currency)}
              </p>
            ))}
          </div>
          <div>
            <h3>Open reservations</h3>
            {state.reservations.length === 0 ? (
              <Empty>No open reservation</Empty>
            ) : (
              <DataTable
                rows={state.reservations}
                columns={RESERVATION_COLUMNS}
                rowKey={(reservation) => reservation.id}
              />
            )}
            <h3>Latest invoices</h3>
            {state.invoices.length === 0 ? (
              <Empty>No invoice yet</Empty>
            ) : (
              <DataTable
                rows={state.invoices.slice(-NEWEST_INVOICES).reverse()}
                columns={INVOICE_COLUMNS}
                rowKey={(invoice) => invoice.id}
              />
            )}
          </div>
        </div>
      )}
    </Panel>
  );
}
