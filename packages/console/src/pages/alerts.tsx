import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { Outputs } from "../api.js";
import { ConfirmButton } from "../components/confirm-button.js";
import { CustomerName } from "../components/customer-name.js";
import { type Column, DataTable } from "../components/data-table.js";
import { Day } from "../components/day.js";
import { Field } from "../components/field.js";
import { Pager, useCursorPages } from "../components/paging.js";
import { Empty, ProblemNotice, QueryStatus } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { formatQuantity } from "../format.js";
import { useSession } from "../session-context.js";

const PAGE_SIZE = 20;

type Alert = Outputs["alerts"]["list"]["alerts"][number];

const PERIODS = { CYCLE: "each billing cycle", DAY: "each UTC day" } as const;

/** Thresholds typed as `1000, 5000`: numbers for the API, which checks them (a word stays NaN, refused by index). */
const thresholdsOf = (typed: string) =>
  typed
    .split(/[,\s]+/)
    .filter(Boolean)
    .map((value) => Number(value));

function NewAlertForm() {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [customerId, setCustomerId] = useState("");
  const [meterKey, setMeterKey] = useState("");
  const [thresholds, setThresholds] = useState("");
  const [period, setPeriod] = useState<keyof typeof PERIODS>("CYCLE");
  const create = useMutation({
    mutationFn: () =>
      api.alerts.create.mutate({
        ...(customerId.trim() && { customerId: customerId.trim() }),
        meterKey: meterKey.trim(),
        thresholds: thresholdsOf(thresholds),
        period,
      }),
    onSuccess: () => {
      setThresholds("");
      return queryClient.invalidateQueries({ queryKey: ["alerts"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <details className="panel">
      <summary>New alert</summary>
      <form className="stacked" onSubmit={submit} aria-label="New alert">
        <Field
          id="alert-customer"
          label="Customer (id or externalId; empty: every customer)"
          path="customerId"
          error={create.error}
        >
          {(control) => (
            <input {...control} value={customerId} onChange={(event) => setCustomerId(event.target.value)} />
          )}
        </Field>
        <Field id="alert-meter" label="Meter key" path="meterKey" error={create.error}>
          {(control) => <input {...control} value={meterKey} onChange={(event) => setMeterKey(event.target.value)} />}
        </Field>
        <Field
          id="alert-thresholds"
          label="Thresholds (usage values, increasing, comma separated)"
          path="thresholds"
          nested
          error={create.error}
        >
          {(control) => (
            <input
              {...control}
              value={thresholds}
              placeholder="1000, 5000"
              onChange={(event) => setThresholds(event.target.value)}
            />
          )}
        </Field>
        <Field id="alert-period" label="Counted over" path="period" error={create.error}>
          {(control) => (
            <select
              {...control}
              value={period}
              onChange={(event) => setPeriod(event.target.value as keyof typeof PERIODS)}
            >
              {Object.entries(PERIODS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <WriteButton type="submit" disabled={create.isPending}>
          Create alert
        </WriteButton>
        {create.error && <ProblemNotice error={create.error} />}
      </form>
    </details>
  );
}

function DeleteAlert({ alert }: { alert: Alert }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => api.alerts.delete.mutate({ alertId: alert.id }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["alerts"] }),
  });
  return (
    <>
      <ConfirmButton
        label="Delete"
        name={`Delete the alert on ${alert.meterKey}`}
        confirmLabel="Delete for good"
        warning="Its thresholds no longer fire."
        onConfirm={() => remove.mutate()}
        pending={remove.isPending}
      />
      {remove.error && <ProblemNotice error={remove.error} />}
    </>
  );
}

const COLUMNS: Column<Alert>[] = [
  {
    name: "Customer",
    cell: (alert) => (alert.customerId ? <CustomerName customerId={alert.customerId} /> : "every customer"),
  },
  { name: "Meter", cell: (alert) => <code>{alert.meterKey}</code> },
  { name: "Thresholds", cell: (alert) => alert.thresholds.map(formatQuantity).join(", ") },
  { name: "Counted over", cell: (alert) => PERIODS[alert.period] },
  { name: "Created", cell: (alert) => <Day iso={alert.createdAt} /> },
  { name: "Actions", cell: (alert) => <DeleteAlert alert={alert} /> },
];

/** Usage alerts: a `usage.threshold_crossed` webhook when a customer's usage of a meter reaches a threshold. */
export function AlertsPage() {
  const { api } = useSession();
  const pages = useCursorPages();
  const alerts = useQuery({
    queryKey: ["alerts", pages.cursor],
    queryFn: () => api.alerts.list.query({ limit: PAGE_SIZE, cursor: pages.cursor }),
  });
  return (
    <section>
      <h1>Usage alerts</h1>
      <p>Each threshold sends a usage.threshold_crossed webhook once per period, when a customer's usage reaches it.</p>
      <NewAlertForm />
      <QueryStatus query={alerts} what="alerts" />
      {alerts.data &&
        (alerts.data.alerts.length === 0 ? (
          <Empty>No alerts yet: create one above.</Empty>
        ) : (
          <>
            <DataTable rows={alerts.data.alerts} columns={COLUMNS} rowKey={(alert) => alert.id} caption="Alerts" />
            <Pager label="Alerts" pages={pages} nextCursor={alerts.data.nextCursor} total={alerts.data.total} />
          </>
        ))}
    </section>
  );
}
