import { useQuery } from "@tanstack/react-query";
import { Pager, useCursorPages } from "../components/paging.js";
import { Empty, QueryStatus } from "../components/status.js";
import { formatDate } from "../format.js";
import { useSession } from "../session-context.js";

const PAGE_SIZE = 10;

export function CustomerContracts({ customerId }: { customerId: string }) {
  const { api } = useSession();
  const pages = useCursorPages();
  const contracts = useQuery({
    queryKey: ["contracts", customerId, pages.cursor],
    queryFn: () => api.contracts.list.query({ customerId, limit: PAGE_SIZE, cursor: pages.cursor }),
  });
  const listed = contracts.data?.contracts;
  return (
    <section className="panel" aria-labelledby="contracts-heading">
      <h2 id="contracts-heading">Contracts</h2>
      <QueryStatus query={contracts} what="contracts" />
      {listed &&
        (listed.length === 0 ? (
          <Empty>No contracts.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">From</th>
                <th scope="col">Until</th>
                <th scope="col">Currency</th>
              </tr>
            </thead>
            <tbody>
              {listed.map((contract) => (
                <tr key={contract.id}>
                  <td>{contract.name}</td>
                  <td>{contract.status}</td>
                  <td>{formatDate(contract.startDate)}</td>
                  <td>{contract.endDate ? formatDate(contract.endDate) : "open-ended"}</td>
                  <td>{contract.currency}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      {(contracts.data?.hasMore || pages.page > 1) && (
        <Pager label="Contracts" pages={pages} nextCursor={contracts.data?.nextCursor} total={contracts.data?.total} />
      )}
    </section>
  );
}
