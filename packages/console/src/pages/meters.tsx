import { useQuery } from "@tanstack/react-query";
import { Pager, useCursorPages } from "../components/paging.js";
import { Empty, QueryStatus } from "../components/status.js";
import { formatDate } from "../format.js";
import { useSession } from "../session-context.js";

const PAGE_SIZE = 20;

export function MetersPage() {
  const { api } = useSession();
  const pages = useCursorPages();
  const meters = useQuery({
    queryKey: ["meters", "list", pages.cursor],
    queryFn: () => api.meters.list.query({ limit: PAGE_SIZE, cursor: pages.cursor }),
  });
  return (
    <section>
      <h1>Meters</h1>
      <QueryStatus query={meters} what="meters" />
      {meters.data &&
        (meters.data.meters.length === 0 ? (
          <Empty>No meters yet: define them through the API.</Empty>
        ) : (
          <>
            <table>
              <caption>What each meter counts</caption>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Name</th>
                  <th scope="col">Events</th>
                  <th scope="col">Aggregation</th>
                  <th scope="col">Filters</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {meters.data.meters.map((meter) => (
                  <tr key={meter.id}>
                    <td>
                      <code>{meter.key}</code>
                    </td>
                    <td>{meter.displayName ?? "—"}</td>
                    <td>
                      <code>{meter.eventName}</code>
                    </td>
                    <td>
                      {meter.aggregation}
                      {meter.valueProperty && ` of ${meter.valueProperty}`}
                    </td>
                    <td>
                      {meter.filters?.map((filter) => `${filter.property} in ${filter.in.join(", ")}`).join("; ") ||
                        "—"}
                    </td>
                    <td>{formatDate(meter.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager label="Meters" pages={pages} nextCursor={meters.data.nextCursor} total={meters.data.total} />
          </>
        ))}
    </section>
  );
}
