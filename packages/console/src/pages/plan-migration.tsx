import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import type { Inputs, Outputs } from "../api.js";
import { ConfirmButton } from "../components/confirm-button.js";
import { DataTable } from "../components/data-table.js";
import { Field, isoMoment } from "../components/field.js";
import { ProblemNotice } from "../components/status.js";
import { formatDateTime } from "../format.js";
import { useSession } from "../session-context.js";

type Migration = Outputs["plans"]["migration"]["migration"];
type Effective = Inputs["plans"]["migrate"]["effective"];

/** How often a running migration's progress is read again. */
const PROGRESS_EVERY_MS = 1000;

const EFFECTIVE = {
  NEXT_CYCLE: "From each contract's next cycle",
  IMMEDIATELY: "From today (the cycle split and prorated)",
  AT: "From a day",
} as const;

/** The versions to move as typed: `ALL`, or numbers separated by commas (what is not a number goes for the API to refuse). */
function fromVersionsOf(typed: string): Inputs["plans"]["migrate"]["fromVersions"] {
  if (typed.trim().toUpperCase() === "ALL") return "ALL";
  return typed.split(",").map((part) => Number(part.trim()));
}

/** A migration's progress, read again every second while it runs: moved, failed (with the reason), of how many. */
function MigrationProgress({ planId, started }: { planId: string; started: Migration }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const read = useQuery({
    queryKey: ["migration", started.id],
    queryFn: async () => (await api.plans.migration.query({ planId, migrationId: started.id })).migration,
    initialData: started,
    refetchInterval: (query) => (query.state.data?.status === "RUNNING" ? PROGRESS_EVERY_MS : false),
  });
  const migration = read.data;
  const completed = migration.status === "COMPLETED";
  useEffect(() => {
    // The versions' subscriber counts and the subscribers' versions changed.
    if (completed) void queryClient.invalidateQueries({ queryKey: ["plans"] });
  }, [completed, queryClient]);
  const settled = migration.done + migration.failedTotal;
  return (
    <div role="status" aria-label="Migration progress">
      <label htmlFor="migration-progress">
        {completed ? `Completed ${formatDateTime(migration.completedAt ?? migration.updatedAt)}` : "Running"}:{" "}
        {migration.done} of {migration.total} contracts moved to version {migration.toVersion}, {migration.failedTotal}{" "}
        left where they were.
      </label>{" "}
      <progress id="migration-progress" value={settled} max={Math.max(migration.total, 1)} />
      {read.error && <ProblemNotice error={read.error} />}
      {migration.failed.length > 0 && (
        <DataTable
          rows={migration.failed}
          columns={[
            { name: "Contract", cell: (failure) => <code>{failure.contractId}</code> },
            { name: "Why it was left", cell: (failure) => failure.reason },
          ]}
          rowKey={(failure) => failure.contractId}
          caption="Contracts left on their version"
        />
      )}
    </div>
  );
}

/**
 * Moves the plan's contracts on some versions to another (POST /plans/{planId}/migrations), each amended from its day
 * as a contract change would be; asked twice, since moved contracts stay moved. Its progress follows.
 */
export function PlanMigration({ planId, currentVersion }: { planId: string; currentVersion: number }) {
  const { api } = useSession();
  const [fromVersions, setFromVersions] = useState("ALL");
  const [toVersion, setToVersion] = useState(String(currentVersion));
  const [effective, setEffective] = useState<keyof typeof EFFECTIVE>("NEXT_CYCLE");
  const [day, setDay] = useState("");
  const [dropOverrides, setDropOverrides] = useState(false);
  const migrate = useMutation({
    mutationFn: () =>
      api.plans.migrate.mutate({
        planId,
        fromVersions: fromVersionsOf(fromVersions),
        toVersion: Number(toVersion),
        effective: (effective === "AT" ? { at: isoMoment(day) ?? "" } : effective) as Effective,
        dropOverrides,
      }),
  });
  const submit = (event: FormEvent) => event.preventDefault();
  return (
    <details>
      <summary>Migrate contracts to a version</summary>
      <form className="stacked" onSubmit={submit} aria-label="Migrate contracts">
        <Field
          id="migration-from"
          label="From versions (ALL, or e.g. 1, 2)"
          path="fromVersions"
          nested
          error={migrate.error}
        >
          {(control) => (
            <input {...control} value={fromVersions} onChange={(event) => setFromVersions(event.target.value)} />
          )}
        </Field>
        <Field id="migration-to" label="To version" path="toVersion" error={migrate.error}>
          {(control) => (
            <input {...control} size={4} value={toVersion} onChange={(event) => setToVersion(event.target.value)} />
          )}
        </Field>
        <Field id="migration-effective" label="Effective" path="effective" error={migrate.error}>
          {(control) => (
            <select
              {...control}
              value={effective}
              onChange={(event) => setEffective(event.target.value as keyof typeof EFFECTIVE)}
            >
              {Object.entries(EFFECTIVE).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
        {effective === "AT" && (
          <Field id="migration-day" label="Day (YYYY-MM-DD)" path="effective.at" error={migrate.error}>
            {(control) => <input {...control} size={10} value={day} onChange={(event) => setDay(event.target.value)} />}
          </Field>
        )}
        <div className="field">
          <label>
            <input
              type="checkbox"
              checked={dropOverrides}
              onChange={(event) => setDropOverrides(event.target.checked)}
            />{" "}
            Drop overrides of products the version lacks (else such a contract is left where it is)
          </label>
        </div>
        <ConfirmButton
          label="Migrate contracts"
          confirmLabel="Migrate for good"
          warning="Each contract is amended from its day: moved contracts stay moved (another migration moves them on)."
          onConfirm={() => migrate.mutate()}
          pending={migrate.isPending}
        />
        {migrate.error && <ProblemNotice error={migrate.error} />}
      </form>
      {migrate.data && (
        <MigrationProgress key={migrate.data.migration.id} planId={planId} started={migrate.data.migration} />
      )}
    </details>
  );
}
