import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { Inputs, Outputs } from "../api.js";
import { CustomerName, PAYMENT_STATES } from "../components/customer-name.js";
import { type Column, DataTable } from "../components/data-table.js";
import { Day } from "../components/day.js";
import { Field } from "../components/field.js";
import { Pager, useCursorPages } from "../components/paging.js";
import { Empty, QueryStatus } from "../components/status.js";
import { formatMoney, ISO_DAY } from "../format.js";
import { Link } from "../router.js";
import { useSession } from "../session-context.js";

type Invoice = Outputs["invoices"]["list"]["invoices"][number];
type Filters = Pick<
  Inputs["invoices"]["list"],
  "status" | "billingStatus" | "overdue" | "customerId" | "issuedFrom" | "issuedTo"
>;

const PAGE_SIZE = 25;

const STATUSES = ["DRAFT", "FINALIZED", "VOIDED"] as const;
const BILLING_STATUSES = Object.keys(PAYMENT_STATES) as (keyof typeof PAYMENT_STATES)[];

const COLUMNS: Column<Invoice>[] = [
  {
    name: "Invoice",
    cell: (invoice) => (
      <Link to={`/invoices/${encodeURIComponent(invoice.id)}`}>{invoice.number ?? "Draft invoice"}</Link>
    ),
  },
  { name: "Customer", cell: (invoice) => <CustomerName customerId={invoice.customerId} /> },
  { name: "Issued", cell: (invoice) => <Day iso={invoice.finalizedAt ?? invoice.createdAt} /> },
  { name: "Due", cell: (invoice) => <Day iso={invoice.dueDate} /> },
  { name: "Status", cell: (invoice) => (invoice.overdue ? `${invoice.status}, overdue` : invoice.status) },
  {
    name: "Payment",
    cell: (invoice) => (invoice.status === "FINALIZED" ? PAYMENT_STATES[invoice.billingStatus] : "—"),
  },
  { name: "Total", numeric: true, cell: (invoice) => formatMoney(invoice.revenueBreakdown.total, invoice.currency) },
  { name: "Amount due", numeric: true, cell: (invoice) => formatMoney(invoice.amountDue, invoice.currency) },
];

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled. */
const csvField = (value: string | number) => {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** The invoices shown, as CSV a spreadsheet opens: amounts as plain decimals with their currency in a column. */
export function invoicesCsv(invoices: Invoice[]): string {
  const header = [
    "number",
    "id",
    "customerId",
    "status",
    "billingStatus",
    "overdue",
    "issuedAt",
    "dueDate",
    "currency",
  ];
  const rows = invoices.map((invoice) => [
    invoice.number ?? "",
    invoice.id,
    invoice.customerId,
    invoice.status,
    invoice.billingStatus,
    String(invoice.overdue),
    invoice.finalizedAt ?? "",
    invoice.dueDate,
    invoice.currency,
    invoice.revenueBreakdown.total,
    invoice.amountDue,
  ]);
  return [[...header, "total", "amountDue"], ...rows].map((row) => row.map(csvField).join(",")).join("\r\n") + "\r\n";
}

/** The filters a link may carry (`/invoices?overdue=true`): the overview's "every overdue invoice". */
function filtersOfAddress(): Filters {
  const query = new URLSearchParams(window.location.search);
  return query.get("overdue") === "true" ? { overdue: true } : {};
}

/** A typed day's start (UTC), as the API's issue date bounds take it; nothing for an empty field. */
const dayStart = (day: string) => (day.trim() === "" ? undefined : `${day.trim()}T00:00:00Z`);

/**
 * Every invoice of the account, filtered as the API filters them (an issue date's bounds included), a page at a
 * time, and the page as CSV: what the list shows, so its filters too.
 */
export function InvoicesPage() {
  const { api } = useSession();
  const pages = useCursorPages();
  const [filters, setFilters] = useState<Filters>(filtersOfAddress);
  const [customer, setCustomer] = useState("");
  const [issued, setIssued] = useState({ from: "", to: "" });
  const list = useQuery({
    queryKey: ["invoices", "list", filters, pages.cursor],
    queryFn: () => api.invoices.list.query({ ...filters, limit: PAGE_SIZE, cursor: pages.cursor }),
  });
  const change = (next: Filters) => {
    pages.reset();
    setFilters(next);
  };
  const submitCustomer = (event: FormEvent) => {
    event.preventDefault();
    const customerId = customer.trim();
    change({
      ...filters,
      customerId: customerId === "" ? undefined : customerId,
      issuedFrom: dayStart(issued.from),
      issuedTo: dayStart(issued.to),
    });
  };
  const csvHref =
    list.data && `data:text/csv;charset=utf-8,${encodeURIComponent(`\uFEFF${invoicesCsv(list.data.invoices)}`)}`;
  return (
    <section>
      <h1>Invoices</h1>
      <form className="inline" onSubmit={submitCustomer}>
        <label>
          Status{" "}
          <select
            value={filters.status ?? ""}
            onChange={(event) => change({ ...filters, status: (event.target.value || undefined) as Filters["status"] })}
          >
            <option value="">Any</option>
            {STATUSES.map((status) => (
              <option key={status}>{status}</option>
            ))}
          </select>
        </label>
        <label>
          Payment{" "}
          <select
            value={filters.billingStatus ?? ""}
            onChange={(event) =>
              change({
                ...filters,
                billingStatus: (event.target.value || undefined) as Filters["billingStatus"],
              })
            }
          >
            <option value="">Any</option>
            {BILLING_STATUSES.map((status) => (
              <option key={status} value={status}>
                {PAYMENT_STATES[status]}
              </option>
            ))}
          </select>
        </label>
        <label>
          <input
            type="checkbox"
            checked={filters.overdue === true}
            onChange={(event) => change({ ...filters, overdue: event.target.checked ? true : undefined })}
          />{" "}
          Overdue only
        </label>
        <Field id="invoices-customer" label="Customer id or externalId" path="customerId" error={list.error}>
          {(control) => <input {...control} value={customer} onChange={(event) => setCustomer(event.target.value)} />}
        </Field>
        <Field id="invoices-issued-from" label="Issued from" path="issuedFrom" error={list.error}>
          {(control) => (
            <input
              {...control}
              value={issued.from}
              pattern={ISO_DAY}
              placeholder="YYYY-MM-DD"
              inputMode="numeric"
              size={10}
              onChange={(event) => setIssued({ ...issued, from: event.target.value })}
            />
          )}
        </Field>
        <Field id="invoices-issued-to" label="Issued before" path="issuedTo" error={list.error}>
          {(control) => (
            <input
              {...control}
              value={issued.to}
              pattern={ISO_DAY}
              placeholder="YYYY-MM-DD"
              inputMode="numeric"
              size={10}
              onChange={(event) => setIssued({ ...issued, to: event.target.value })}
            />
          )}
        </Field>
        <button type="submit">Filter</button>
      </form>
      <QueryStatus query={list} what="invoices" />
      {list.data &&
        (list.data.invoices.length === 0 ? (
          <Empty>No invoice matches.</Empty>
        ) : (
          <>
            <DataTable
              rows={list.data.invoices}
              columns={COLUMNS}
              rowKey={(invoice) => invoice.id}
              caption="Invoices"
            />
            <Pager label="Invoices" pages={pages} nextCursor={list.data.nextCursor} total={list.data.total} />
            {csvHref && (
              <p>
                <a href={csvHref} download={`invoices-page-${pages.page}.csv`}>
                  Download this page as CSV
                </a>
              </p>
            )}
          </>
        ))}
    </section>
  );
}
