import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { Outputs } from "../api.js";
import { type Column, DataTable } from "../components/data-table.js";
import { Panel } from "../components/panel.js";
import { QueryStatus } from "../components/status.js";
import { formatMoney } from "../format.js";
import { useSession } from "../session-context.js";

type MrrMonth = Outputs["reports"]["mrr"]["months"][number];

/** Reports by calendar month over the last twelve (the current one included). */
export const MONTHS_SHOWN = 12;

/** The first instant of the month `back` months before this one (UTC). */
export const monthStart = (now: Date, back: number) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));

const MOVEMENTS = ["new", "expansion", "contraction", "churn", "reactivation"] as const;
const MOVEMENT_LABELS: Record<(typeof MOVEMENTS)[number], string> = {
  new: "New",
  expansion: "Expansion",
  contraction: "Contraction",
  churn: "Churn",
  reactivation: "Reactivation",
};

/**
 * MRR and ARR at this month's end, its movements, and MRR over the last twelve months (GET /reports/mrr): the
 * account's, or one customer's (`customerId`: its contracts only).
 */
export function Mrr({ currency, customerId }: { currency: string; customerId?: string }) {
  const { api } = useSession();
  const [now] = useState(() => new Date());
  const from = monthStart(now, MONTHS_SHOWN - 1).toISOString();
  const to = monthStart(now, -1).toISOString();
  const report = useQuery({
    queryKey: ["reports", "mrr", currency, from, customerId],
    queryFn: () => api.reports.mrr.query({ from, to, currency, ...(customerId && { customerId }) }),
  });
  const rows = (report.data?.months ?? []).map((month) => ({ ...month, month: month.start.slice(0, 7) }));
  const thisMonth = rows.at(-1);
  const columns: Column<MrrMonth & { month: string }>[] = [
    { name: "Month", cell: (month) => month.month },
    { name: "MRR", numeric: true, cell: (month) => formatMoney(month.mrr, currency) },
    ...MOVEMENTS.map((kind) => ({
      name: MOVEMENT_LABELS[kind],
      numeric: true,
      cell: (month: MrrMonth) => formatMoney(month.movements[kind].amount, currency),
    })),
  ];
  return (
    <Panel
      id={customerId ? `mrr-${currency}` : "mrr"}
      title={customerId ? `Recurring revenue (MRR) in ${currency}` : "Recurring revenue (MRR)"}
      wide
    >
      <QueryStatus query={report} what="MRR" />
      {thisMonth && (
        <>
          <p className="figures">
            <span className="figure">{formatMoney(thisMonth.mrr, currency)}</span> MRR ·{" "}
            {formatMoney(thisMonth.arr, currency)} ARR · this month:{" "}
            {MOVEMENTS.map(
              (kind) => `${MOVEMENT_LABELS[kind]} ${formatMoney(thisMonth.movements[kind].amount, currency)}`,
            ).join(", ")}
          </p>
          <figure className="chart" aria-label={`MRR at each month's end, in ${currency}`}>
            <ResponsiveContainer width="100%" height={200}>
              <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis dataKey="month" />
                <YAxis width={72} tickFormatter={(value: number) => formatMoney(value, currency)} />
                <Tooltip formatter={(value) => formatMoney(Number(value), currency)} />
                <Line type="linear" dataKey="mrr" name="MRR" stroke="#1d4ed8" isAnimationActive={false} />
              </LineChart>
            </ResponsiveContainer>
          </figure>
          <details>
            <summary>MRR and its movements as a table</summary>
            <DataTable rows={rows} columns={columns} rowKey={(month) => month.month} caption="MRR by month" />
          </details>
        </>
      )}
    </Panel>
  );
}
