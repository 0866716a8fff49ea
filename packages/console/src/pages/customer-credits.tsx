import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Outputs } from "../api.js";
import { type Column, DataTable } from "../components/data-table.js";
import { Day } from "../components/day.js";
import { Pager, useCursorPages } from "../components/paging.js";
import { Panel } from "../components/panel.js";
import { Empty, ProblemNotice, QueryStatus } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { formatMoney } from "../format.js";
import { Link } from "../router.js";
import { useSession } from "../session-context.js";
import { GrantForm } from "./grant-form.js";

const PAGE_SIZE = 10;

type Grant = Outputs["credits"]["balance"]["grants"][number];
type LedgerEntry = Outputs["credits"]["list"]["entries"][number];

const GRANT_COLUMNS: Column<Grant>[] = [
  { name: "Grant", cell: (grant) => <code>{grant.grantId}</code> },
  { name: "Effective", cell: (grant) => <Day iso={grant.effectiveAt} /> },
  { name: "Expires", cell: (grant) => (grant.expiresAt ? <Day iso={grant.expiresAt} /> : "never") },
  { name: "Granted", numeric: true, cell: (grant) => formatMoney(grant.amount, grant.currency) },
  { name: "Remaining", numeric: true, cell: (grant) => formatMoney(grant.remaining, grant.currency) },
];

/**
 * Stops a recurring grant of `POST /credits` after the periods started (they stay): on its period's `Grant` entry. A
 * contract's grants (`<contractId>/<index>`) change with the contract, so their entries offer no button.
 */
function StopRecurring({ entry }: { entry: LedgerEntry }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const stop = useMutation({
    mutationFn: () => api.credits.cancelRecurrence.mutate({ entryId: entry.id }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["credit-ledger", entry.customerId] }),
  });
  if (stop.data) return <>stopped after period {stop.data.recurringGrant.lastPeriod}</>;
  return (
    <>
      <WriteButton finance onClick={() => stop.mutate()} disabled={stop.isPending}>
        Stop recurring
      </WriteButton>
      {stop.error && <ProblemNotice error={stop.error} />}
    </>
  );
}

/** A recurring grant's entry: its period (and whether it carries the period before's rest), and its stop button. */
function recurrenceCell(entry: LedgerEntry) {
  if (entry.type !== "Grant" || !entry.recurringGrantId) return "—";
  if (entry.rollover) return `period ${entry.period}, rolled over`;
  return (
    <>
      period {entry.period}
      {!entry.recurringGrantId.includes("/") && (
        <>
          {" "}
          <StopRecurring entry={entry} />
        </>
      )}
    </>
  );
}

const LEDGER_COLUMNS: Column<LedgerEntry>[] = [
  { name: "Date", cell: (entry) => <Day iso={entry.createdAt} /> },
  { name: "Type", cell: (entry) => entry.type },
  { name: "Amount", numeric: true, cell: (entry) => formatMoney(entry.amount, entry.currency) },
  { name: "Balance after", numeric: true, cell: (entry) => formatMoney(entry.balanceAfterEntry, entry.currency) },
  { name: "Recurring", cell: recurrenceCell },
  {
    name: "Invoice",
    cell: (entry) =>
      entry.invoiceId ? (
        // The invoice's id ends the text: each link's name tells its invoice apart, as the text a person reads does.
        <Link to={`/invoices/${encodeURIComponent(entry.invoiceId)}`} className="in-words">
          {entry.type === "Reversal" ? "Voided" : "Paid"} invoice …{entry.invoiceId.slice(-6)}
        </Link>
      ) : (
        "—"
      ),
  },
];

function Grants({ customerId }: { customerId: string }) {
  const { api } = useSession();
  const balance = useQuery({
    queryKey: ["credit-balance", customerId],
    queryFn: () => api.credits.balance.query({ customerId }),
  });
  if (!balance.data) return <QueryStatus query={balance} what="the credit balance" />;
  const { balances, grants } = balance.data;
  return (
    <>
      <p className="balances">
        Balance{" "}
        {balances.map((entry) => (
          <span key={entry.currency} className="figure">
            {formatMoney(entry.balance, entry.currency)}
          </span>
        ))}
      </p>
      {grants.length === 0 ? (
        <Empty>No grant has money left.</Empty>
      ) : (
        <DataTable
          rows={grants}
          columns={GRANT_COLUMNS}
          rowKey={(grant) => grant.grantId}
          caption="Grants with money left, in the order invoices use them"
        />
      )}
    </>
  );
}

/** The ledger pages by the last entry's id; a page shorter than the limit is the last one. */
function Ledger({ customerId }: { customerId: string }) {
  const { api } = useSession();
  const pages = useCursorPages();
  const ledger = useQuery({
    queryKey: ["credit-ledger", customerId, pages.cursor],
    queryFn: () => api.credits.list.query({ customerId, limit: PAGE_SIZE, cursor: pages.cursor }),
  });
  if (!ledger.data) return <QueryStatus query={ledger} what="the credit ledger" />;
  const { entries } = ledger.data;
  if (entries.length === 0 && pages.page === 1) return <Empty>No credit ledger entries.</Empty>;
  const last = entries.length === PAGE_SIZE ? entries[entries.length - 1]?.id : undefined;
  return (
    <>
      <DataTable rows={entries} columns={LEDGER_COLUMNS} rowKey={(entry) => entry.id} caption="Ledger, oldest first" />
      <Pager label="Ledger" pages={pages} nextCursor={last} />
    </>
  );
}

export function CustomerCredits({ customerId }: { customerId: string }) {
  return (
    <Panel id="credits" title="Credits">
      <Grants customerId={customerId} />
      <GrantForm customerId={customerId} />
      <Ledger customerId={customerId} />
    </Panel>
  );
}
