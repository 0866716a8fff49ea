import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { type Column, DataTable } from "../components/data-table.js";
import { Panel } from "../components/panel.js";
import { Empty, QueryStatus } from "../components/status.js";
import { formatQuantity, ISO_DAY, isDay } from "../format.js";
import { useSession } from "../session-context.js";
import { dailyPoints, defaultUsageView } from "../usage-days.js";

const DAY_COLUMNS: Column<{ date: string; value: number }>[] = [
  { name: "Day", cell: (point) => point.date },
  { name: "Usage", numeric: true, cell: (point) => formatQuantity(point.value) },
];

/** Meters offered in the chart's picker: one page, the API's largest. */
const METER_PICKER_SIZE = 1000;
/** The contracts the first view is chosen from: the customer's first page. */
const CONTRACTS_READ = 100;

export function UsageChart({ customerId }: { customerId: string }) {
  const { api } = useSession();
  const [chosenPeriod, setPeriod] = useState<{ startDate: string; endDate: string }>();
  const [chosenKey, setChosenKey] = useState<string>();
  const meters = useQuery({
    queryKey: ["meters", "picker"],
    queryFn: () => api.meters.list.query({ limit: METER_PICKER_SIZE }),
  });
  const contracts = useQuery({
    queryKey: ["contracts", customerId, "chart"],
    queryFn: () => api.contracts.list.query({ customerId, limit: CONTRACTS_READ }),
  });
  const first =
    meters.data &&
    contracts.data &&
    defaultUsageView(
      contracts.data.contracts,
      meters.data.meters.map((meter) => meter.key),
    );
  const meterKey = chosenKey ?? first?.meterKey;
  const period = chosenPeriod ?? first?.period ?? { startDate: "", endDate: "" };
  const usage = useQuery({
    queryKey: ["usage", customerId, meterKey, period.startDate, period.endDate],
    // Asked only once both days are whole: a half-typed day is not a question for the API.
    enabled: meterKey !== undefined && isDay(period.startDate) && isDay(period.endDate),
    queryFn: () => api.usage.get.query({ customerId, meterKey: meterKey ?? "", ...period }),
  });
  const points =
    usage.data && isDay(period.startDate) && dailyPoints(period.startDate, period.endDate, usage.data.usage.days);
  return (
    <Panel id="usage" title="Usage per day" wide>
      <QueryStatus query={meters} what="meters" />
      {meters.data && meters.data.meters.length === 0 && <Empty>No meters: define one to see usage.</Empty>}
      {meterKey && (
        <form className="inline" onSubmit={(event) => event.preventDefault()}>
          <label>
            Meter{" "}
            <select value={meterKey} onChange={(event) => setChosenKey(event.target.value)}>
              {meters.data?.meters.map((meter) => (
                <option key={meter.id} value={meter.key}>
                  {meter.displayName ?? meter.key}
                </option>
              ))}
            </select>
          </label>
          <label>
            From{" "}
            <input
              value={period.startDate}
              pattern={ISO_DAY}
              placeholder="YYYY-MM-DD"
              inputMode="numeric"
              onChange={(event) => setPeriod({ ...period, startDate: event.target.value })}
            />
          </label>
          <label>
            Until (excluded){" "}
            <input
              value={period.endDate}
              pattern={ISO_DAY}
              placeholder="YYYY-MM-DD"
              inputMode="numeric"
              onChange={(event) => setPeriod({ ...period, endDate: event.target.value })}
            />
          </label>
        </form>
      )}
      {meterKey && <QueryStatus query={usage} what="usage" />}
      {usage.data && points && (
        <>
          <p>
            {usage.data.usage.aggregation} over the period:{" "}
            <strong className="figure">{formatQuantity(usage.data.usage.value)}</strong>
          </p>
          <figure className="chart" aria-label={`Daily usage of ${meterKey}`}>
            <ResponsiveContainer width="100%" height={240}>
              <LineChart data={points} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis dataKey="date" tickFormatter={(date: string) => date.slice(5)} minTickGap={16} />
                <YAxis tickFormatter={formatQuantity} width={64} />
                <Tooltip formatter={(value) => formatQuantity(Number(value))} />
                <Line type="linear" dataKey="value" name={meterKey} stroke="#1d4ed8" isAnimationActive={false} />
              </LineChart>
            </ResponsiveContainer>
          </figure>
          <details>
            <summary>The days as a table</summary>
            <DataTable rows={points} columns={DAY_COLUMNS} rowKey={(point) => point.date} />
          </details>
        </>
      )}
    </Panel>
  );
}
