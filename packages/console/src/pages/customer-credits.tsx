import { useQuery } from "@tanstack/react-query";
import { Pager, useCursorPages } from "../components/paging.js";
import { Empty, QueryStatus } from "../components/status.js";
import { formatDate, formatMoney } from "../format.js";
import { useSession } from "../session-context.js";

const PAGE_SIZE = 10;

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
        <table>
          <caption>Grants with money left, in the order invoices use them</caption>
          <thead>
            <tr>
              <th scope="col">Grant</th>
              <th scope="col">Effective</th>
              <th scope="col">Expires</th>
              <th scope="col" className="number">
                Granted
              </th>
              <th scope="col" className="number">
                Remaining
              </th>
            </tr>
          </thead>
          <tbody>
            {grants.map((grant) => (
              <tr key={grant.grantId}>
                <td>
                  <code>{grant.grantId}</code>
                </td>
                <td>{formatDate(grant.effectiveAt)}</td>
                <td>{grant.expiresAt ? formatDate(grant.expiresAt) : "never"}</td>
                <td className="number">{formatMoney(grant.amount, grant.currency)}</td>
                <td className="number">{formatMoney(grant.remaining, grant.currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
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
      <table>
        <caption>Ledger, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">Type</th>
            <th scope="col" className="number">
              Amount
            </th>
            <th scope="col" className="number">
              Balance after
            </th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td>{formatDate(entry.createdAt)}</td>
              <td>{entry.type}</td>
              <td className="number">{formatMoney(entry.amount, entry.currency)}</td>
              <td className="number">{formatMoney(entry.balanceAfterEntry, entry.currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager label="Ledger" pages={pages} nextCursor={last} />
    </>
  );
}

export function CustomerCredits({ customerId }: { customerId: string }) {
  return (
    <section className="panel" aria-labelledby="credits-heading">
      <h2 id="credits-heading">Credits</h2>
      <Grants customerId={customerId} />
      <Ledger customerId={customerId} />
    </section>
  );
}
