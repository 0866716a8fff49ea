import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { Outputs } from "../api.js";
import { CustomerName, PAYMENT_STATES } from "../components/customer-name.js";
import { type Column, DataTable } from "../components/data-table.js";
import { Day } from "../components/day.js";
import { Field } from "../components/field.js";
import { Panel } from "../components/panel.js";
import { Empty, QueryStatus } from "../components/status.js";
import { formatMoney } from "../format.js";
import { Link } from "../router.js";
import { useSession } from "../session-context.js";
import { MONTHS_SHOWN, Mrr, monthStart } from "./mrr-panel.js";
import { FailingEndpoints, LastRuns } from "./overview-operations.js";

type Aging = Outputs["reports"]["receivables"]["total"];
type Period = Outputs["reports"]["revenue"]["periods"][number];
type Invoice = Outputs["invoices"]["list"]["invoices"][number];

/** The aging buckets in the order a finance team reads them, with the API's names. */
const BUCKETS = ["current", "1-30", "31-60", "61-90", "90+"] as const satisfies readonly (keyof Aging)[];
const BUCKET_LABELS: Record<(typeof BUCKETS)[number], string> = {
  current: "Not yet due",
  "1-30": "1–30 days late",
  "31-60": "31–60 days late",
  "61-90": "61–90 days late",
  "90+": "Over 90 days late",
};

const OVERDUE_SHOWN = 10;

function Receivables({ currency }: { currency: string }) {
  const { api } = useSession();
  const report = useQuery({
    queryKey: ["reports", "receivables", currency],
    queryFn: () => api.reports.receivables.query({ currency }),
  });
  const customers = report.data?.customers ?? [];
  const columns: Column<{ customerId: string; aging: Aging }>[] = [
    { name: "Customer", cell: ({ customerId }) => <CustomerName customerId={customerId} /> },
    ...BUCKETS.map((bucket) => ({
      name: BUCKET_LABELS[bucket],
      numeric: true,
      cell: ({ aging }: { aging: Aging }) => formatMoney(aging[bucket], currency),
    })),
    { name: "Owed", numeric: true, cell: ({ aging }) => <strong>{formatMoney(aging.total, currency)}</strong> },
  ];
  return (
    <Panel id="receivables" title="Receivables by age" wide>
      <QueryStatus query={report} what="receivables" />
      {report.data && (
        <>
          <dl className="figures-row">
            {BUCKETS.map((bucket) => (
              <div key={bucket}>
                <dt>{BUCKET_LABELS[bucket]}</dt>
                <dd>{formatMoney(report.data.total[bucket], currency)}</dd>
              </div>
            ))}
            <div>
              <dt>Owed in all</dt>
              <dd>
                <strong>{formatMoney(report.data.total.total, currency)}</strong>
              </dd>
            </div>
          </dl>
          {customers.length === 0 ? (
            <Empty>{`No customer owes anything in ${currency}.`}</Empty>
          ) : (
            <DataTable
              rows={customers}
              columns={columns}
              rowKey={({ customerId }) => customerId}
              caption={`Who owes what, in ${currency}`}
            />
          )}
        </>
      )}
    </Panel>
  );
}

/**
 * This month's money in: the payments dated in it, and apart what was refunded through the payment provider
 * (GET /reports/collections).
 */
function CollectedThisMonth({ currency }: { currency: string }) {
  const { api } = useSession();
  const [now] = useState(() => new Date());
  const from = monthStart(now, 0).toISOString();
  const to = monthStart(now, -1).toISOString();
  const report = useQuery({
    queryKey: ["reports", "collections", currency, from],
    queryFn: () => api.reports.collections.query({ from, to, currency }),
  });
  return (
    <>
      <QueryStatus query={report} what="collections" />
      {report.data && (
        <p className="figures">
          <span className="figure">{formatMoney(report.data.collected, currency)}</span> collected this month ·{" "}
          {formatMoney(report.data.refunded, currency)} refunded · {formatMoney(report.data.net, currency)} net
        </p>
      )}
    </>
  );
}

function Revenue({ currency }: { currency: string }) {
  const { api } = useSession();
  const [now] = useState(() => new Date());
  const from = monthStart(now, MONTHS_SHOWN - 1).toISOString();
  const to = monthStart(now, -1).toISOString();
  const report = useQuery({
    queryKey: ["reports", "revenue", currency, from],
    queryFn: () => api.reports.revenue.query({ from, to, interval: "MONTH", currency }),
  });
  const rows = (report.data?.periods ?? []).map((period) => ({ ...period, month: period.start.slice(0, 7) }));
  const columns: Column<Period & { month: string }>[] = [
    { name: "Month", cell: (period) => period.month },
    { name: "Billed", numeric: true, cell: (period) => formatMoney(period.billed, currency) },
    { name: "Recognized", numeric: true, cell: (period) => formatMoney(period.recognized, currency) },
    { name: "Deferred at its end", numeric: true, cell: (period) => formatMoney(period.deferred, currency) },
  ];
  const thisMonth = rows.at(-1);
  return (
    <Panel id="revenue" title="Revenue, last 12 months" wide>
      <QueryStatus query={report} what="revenue" />
      {thisMonth && (
        <p className="figures">
          <span className="figure">{formatMoney(thisMonth.billed, currency)}</span> billed this month ·{" "}
          {formatMoney(thisMonth.recognized, currency)} recognized · tax excluded
        </p>
      )}
      <CollectedThisMonth currency={currency} />
      {rows.length > 0 && (
        <>
          <figure className="chart" aria-label={`Billed and recognized revenue by month, in ${currency}`}>
            <ResponsiveContainer width="100%" height={220}>
              <BarChart data={rows} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis dataKey="month" />
                <YAxis width={72} tickFormatter={(value: number) => formatMoney(value, currency)} />
                <Tooltip formatter={(value) => formatMoney(Number(value), currency)} />
                <Legend />
                <Bar dataKey="billed" name="Billed" fill="#1d4ed8" isAnimationActive={false} />
                <Bar dataKey="recognized" name="Recognized" fill="#15803d" isAnimationActive={false} />
              </BarChart>
            </ResponsiveContainer>
          </figure>
          <details>
            <summary>The months as a table</summary>
            <DataTable rows={rows} columns={columns} rowKey={(period) => period.month} caption="Revenue by month" />
          </details>
        </>
      )}
    </Panel>
  );
}

const OVERDUE_COLUMNS: Column<Invoice>[] = [
  {
    name: "Invoice",
    cell: (invoice) => (
      <Link to={`/invoices/${encodeURIComponent(invoice.id)}`}>{invoice.number ?? "Draft invoice"}</Link>
    ),
  },
  { name: "Customer", cell: (invoice) => <CustomerName customerId={invoice.customerId} /> },
  { name: "Due", cell: (invoice) => <Day iso={invoice.dueDate} /> },
  { name: "Payment", cell: (invoice) => PAYMENT_STATES[invoice.billingStatus] },
  { name: "Amount due", numeric: true, cell: (invoice) => formatMoney(invoice.amountDue, invoice.currency) },
];

function Overdue() {
  const { api } = useSession();
  const overdue = useQuery({
    queryKey: ["invoices", "overdue"],
    queryFn: () => api.invoices.list.query({ overdue: true, limit: OVERDUE_SHOWN }),
  });
  return (
    <Panel id="overdue" title="Overdue invoices" wide>
      <QueryStatus query={overdue} what="overdue invoices" />
      {overdue.data &&
        (overdue.data.invoices.length === 0 ? (
          <Empty>No invoice is overdue.</Empty>
        ) : (
          <>
            <DataTable rows={overdue.data.invoices} columns={OVERDUE_COLUMNS} rowKey={(invoice) => invoice.id} />
            <p>
              <Link to="/invoices?overdue=true">Every overdue invoice ({overdue.data.total})</Link>
            </p>
          </>
        ))}
    </Panel>
  );
}

/** The landing page: what is owed and for how long, what is late, MRR, and what was billed and earned. */
export function OverviewPage() {
  const { api } = useSession();
  const [draft, setDraft] = useState("USD");
  const [currency, setCurrency] = useState("USD");
  // The API checks the code: a 400 naming `currency` shows under the field.
  const check = useQuery({
    queryKey: ["reports", "receivables", currency],
    queryFn: () => api.reports.receivables.query({ currency }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setCurrency(draft.trim().toUpperCase());
  };
  return (
    <section>
      <h1>Overview</h1>
      <form className="inline" onSubmit={submit}>
        <Field id="overview-currency" label="Currency of the reports" path="currency" error={check.error}>
          {(control) => (
            <input {...control} value={draft} size={4} onChange={(event) => setDraft(event.target.value)} />
          )}
        </Field>
        <button type="submit">Show</button>
      </form>
      <div className="grid">
        <Receivables currency={currency} />
        <Overdue />
        <FailingEndpoints />
        <LastRuns />
        <Mrr currency={currency} />
        <Revenue currency={currency} />
      </div>
    </section>
  );
}
