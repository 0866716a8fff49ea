import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { problemOf } from "../api.js";
import { type Column, DataTable } from "../components/data-table.js";
import { Day } from "../components/day.js";
import { Pager, useCursorPages } from "../components/paging.js";
import { Empty, ProblemNotice, QueryStatus } from "../components/status.js";
import { formatMoney, sumMoney } from "../format.js";
import { Link } from "../router.js";
import { useSession } from "../session-context.js";
import { NewCustomerForm } from "./customer-form.js";
import { monthStart } from "./mrr-panel.js";

const PAGE_SIZE = 20;

interface CustomerRow {
  id: string;
  name: string;
  externalId?: string | undefined;
  aliases?: string[] | undefined;
  createdAt: string;
}

/**
 * What a customer owes and holds in the account's default currency (the credit balance's `currency`): owed on
 * finalized invoices (the receivables report, read once for the page), of which past due, and its credit balance.
 */
function useCustomerFigures(customerId: string) {
  const { api } = useSession();
  const balance = useQuery({
    queryKey: ["credit-balance", customerId],
    queryFn: () => api.credits.balance.query({ customerId }),
  });
  const currency = balance.data?.currency;
  const receivables = useQuery({
    queryKey: ["reports", "receivables", currency],
    enabled: currency !== undefined,
    queryFn: () => api.reports.receivables.query({ currency: currency ?? "USD" }),
  });
  const aging = receivables.data?.customers.find((entry) => entry.customerId === customerId)?.aging;
  return { currency, credit: balance.data?.balance, owed: receivables.data && (aging?.total ?? 0), aging };
}

function Owed({ customerId }: { customerId: string }) {
  const { currency, owed, aging } = useCustomerFigures(customerId);
  if (currency === undefined || owed === undefined) return <span className="muted">…</span>;
  const late = aging ? sumMoney(aging.total, -aging.current) : 0;
  return (
    <>
      {formatMoney(owed, currency)}
      {late > 0 && <div className="overdue-note">{formatMoney(late, currency)} past due</div>}
    </>
  );
}

function Credit({ customerId }: { customerId: string }) {
  const { currency, credit } = useCustomerFigures(customerId);
  return currency === undefined || credit === undefined ? (
    <span className="muted">…</span>
  ) : (
    <>{formatMoney(credit, currency)}</>
  );
}

/**
 * The customer's MRR at this month's end in the account's default currency, as its page's MRR panel shows it (GET
 * /reports/mrr?customerId=, this month only).
 */
function CustomerMrr({ customerId }: { customerId: string }) {
  const { api } = useSession();
  const { currency } = useCustomerFigures(customerId);
  const [now] = useState(() => new Date());
  const from = monthStart(now, 0).toISOString();
  const mrr = useQuery({
    queryKey: ["reports", "mrr", currency, from, customerId, "this month"],
    enabled: currency !== undefined,
    queryFn: () =>
      api.reports.mrr.query({ from, to: monthStart(now, -1).toISOString(), currency: currency ?? "USD", customerId }),
  });
  const thisMonth = mrr.data?.months.at(-1);
  if (currency === undefined || !thisMonth) return <span className="muted">…</span>;
  return <>{formatMoney(thisMonth.mrr, currency)}</>;
}

const CUSTOMER_COLUMNS: Column<CustomerRow>[] = [
  {
    name: "Name",
    cell: (customer) => <Link to={`/customers/${encodeURIComponent(customer.id)}`}>{customer.name}</Link>,
  },
  { name: "External id", cell: (customer) => customer.externalId ?? "—" },
  { name: "Aliases", cell: (customer) => customer.aliases?.join(", ") || "—" },
  { name: "Created", cell: (customer) => <Day iso={customer.createdAt} /> },
  { name: "Owed", numeric: true, cell: (customer) => <Owed customerId={customer.id} /> },
  { name: "Credit balance", numeric: true, cell: (customer) => <Credit customerId={customer.id} /> },
  { name: "MRR", numeric: true, cell: (customer) => <CustomerMrr customerId={customer.id} /> },
];

function CustomerTable({ customers, caption }: { customers: CustomerRow[]; caption: string }) {
  return <DataTable rows={customers} columns={CUSTOMER_COLUMNS} rowKey={(customer) => customer.id} caption={caption} />;
}

/**
 * The API finds a customer by exact name, by id or externalId, and by alias (GET /customers?alias=): the
 * three lookups run, and every customer any finds is shown once.
 */
function useCustomerSearch(term: string) {
  const { api } = useSession();
  return useQuery({
    queryKey: ["customers", "search", term],
    enabled: term !== "",
    queryFn: async () => {
      const lookups = await Promise.allSettled([
        api.customers.getByName.query({ name: term }),
        api.customers.get.query({ customerId: term }),
      ]);
      const byAlias = await api.customers.list.query({ alias: term, limit: PAGE_SIZE });
      const found = new Map<string, CustomerRow>();
      for (const lookup of lookups) {
        if (lookup.status === "fulfilled") found.set(lookup.value.customer.id, lookup.value.customer);
        else if (problemOf(lookup.reason).code !== "NOT_FOUND") throw lookup.reason;
      }
      for (const customer of byAlias.customers) found.set(customer.id, customer);
      return [...found.values()];
    },
  });
}

export function CustomersPage() {
  const { api } = useSession();
  const pages = useCursorPages();
  const [draft, setDraft] = useState("");
  const [term, setTerm] = useState("");
  const list = useQuery({
    queryKey: ["customers", "list", pages.cursor],
    queryFn: () => api.customers.list.query({ limit: PAGE_SIZE, cursor: pages.cursor }),
  });
  const search = useCustomerSearch(term);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTerm(draft.trim());
  };
  const clear = () => {
    setTerm("");
    setDraft("");
  };
  return (
    <section>
      <h1>Customers</h1>
      <NewCustomerForm />
      <search>
        <form className="search" onSubmit={submit}>
          <label htmlFor="customer-search">Find a customer by exact name, id, externalId or alias</label>
          <input id="customer-search" value={draft} onChange={(event) => setDraft(event.target.value)} />
          <button type="submit">Find</button>
          {term && (
            <button type="button" onClick={clear}>
              Clear
            </button>
          )}
        </form>
      </search>
      {term ? (
        search.error ? (
          <ProblemNotice error={search.error} />
        ) : search.data === undefined ? (
          <QueryStatus query={search} what="the search" />
        ) : search.data.length === 0 ? (
          <Empty>{`No customer has the name, id or externalId “${term}”.`}</Empty>
        ) : (
          <CustomerTable customers={search.data} caption={`Customers matching “${term}”`} />
        )
      ) : (
        <>
          <QueryStatus query={list} what="customers" />
          {list.data &&
            (list.data.customers.length === 0 ? (
              <Empty>No customers yet: create one above, or through the API.</Empty>
            ) : (
              <>
                <CustomerTable customers={list.data.customers} caption="All customers, oldest first" />
                <Pager label="Customers" pages={pages} nextCursor={list.data.nextCursor} total={list.data.total} />
              </>
            ))}
        </>
      )}
    </section>
  );
}
