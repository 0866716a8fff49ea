import { useQuery } from "@tanstack/react-query";
import type { Outputs } from "../api.js";
import { type Column, DataTable } from "../components/data-table.js";
import { Day } from "../components/day.js";
import { Pager, useCursorPages } from "../components/paging.js";
import { Empty, QueryStatus } from "../components/status.js";
import { useSession } from "../session-context.js";
import { NewMeterForm } from "./meter-form.js";

const PAGE_SIZE = 20;

type Meter = Outputs["meters"]["list"]["meters"][number];

const METER_COLUMNS: Column<Meter>[] = [
  { name: "Key", cell: (meter) => <code>{meter.key}</code> },
  { name: "Name", cell: (meter) => meter.displayName ?? <span className="muted">not named</span> },
  { name: "Events", cell: (meter) => <code>{meter.eventName}</code> },
  {
    name: "Aggregation",
    cell: (meter) => `${meter.aggregation}${meter.valueProperty ? ` of ${meter.valueProperty}` : ""}`,
  },
  {
    name: "Filters",
    cell: (meter) => meter.filters?.map((filter) => `${filter.property} in ${filter.in.join(", ")}`).join("; ") || "—",
  },
  { name: "Created", cell: (meter) => <Day iso={meter.createdAt} /> },
];

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
      <NewMeterForm />
      <QueryStatus query={meters} what="meters" />
      {meters.data &&
        (meters.data.meters.length === 0 ? (
          <Empty>No meters yet: define one above, or through the API.</Empty>
        ) : (
          <>
            <DataTable
              rows={meters.data.meters}
              columns={METER_COLUMNS}
              rowKey={(meter) => meter.id}
              caption="What each meter counts"
            />
            <Pager label="Meters" pages={pages} nextCursor={meters.data.nextCursor} total={meters.data.total} />
          </>
        ))}
    </section>
  );
}
