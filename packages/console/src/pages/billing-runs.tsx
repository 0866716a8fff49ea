import type { AppRouter } from "@billing/server";
import { useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useState } from "react";
import { Field } from "../components/field.js";
import { ProblemNotice } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { formatDateTime } from "../format.js";
import { useSession } from "../session-context.js";
import { LastRuns } from "./overview-operations.js";

/** Runs listed under the form: the audit log's `billing.run` entries, newest first. */
const RUNS_LISTED = 25;

type RunCall = inferRouterOutputs<AppRouter>["billing"]["run"]["run"];

interface Progress {
  at: string;
  calls: number;
  contractsBilled: number;
  invoicesCreated: number;
  failures: RunCall["failures"];
  finished: boolean;
}

/** A run bills as of one moment; each call stops at its work limit, so the console calls again until `hasMore` ends. */
export function BillingRunsPage() {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [progress, setProgress] = useState<Progress>();
  const [error, setError] = useState<unknown>();
  const [running, setRunning] = useState(false);
  const [asOf, setAsOf] = useState("");
  const runNow = async () => {
    setRunning(true);
    setError(undefined);
    setProgress(undefined);
    // Empty: now, as the API decides it; the first call's `at` then holds every later call to the same moment.
    let at: string | undefined = asOf.trim() || undefined;
    let total: Progress | undefined;
    try {
      for (let more = true; more; ) {
        const { run } = await api.billing.run.mutate(at ? { at } : {});
        at = run.at;
        total = {
          at: run.at,
          calls: (total?.calls ?? 0) + 1,
          contractsBilled: (total?.contractsBilled ?? 0) + run.contractsBilled,
          invoicesCreated: (total?.invoicesCreated ?? 0) + run.invoicesCreated,
          failures: [...(total?.failures ?? []), ...run.failures],
          finished: !run.hasMore,
        };
        setProgress(total);
        more = run.hasMore;
      }
    } catch (caught) {
      setError(caught);
    } finally {
      setRunning(false);
      await queryClient.invalidateQueries({ queryKey: ["runs"] });
    }
  };
  return (
    <section>
      <h1>Billing runs</h1>
      <p>
        A run invoices every contract with a cycle due as of now. Runs are safe to repeat: an invoice that exists is
        never made twice.
      </p>
      <form className="stacked" onSubmit={(event) => event.preventDefault()} aria-label="Run billing">
        <Field id="run-at" label="As of (ISO date-time; empty: now)" path="at" error={error}>
          {(control) => (
            <input
              {...control}
              value={asOf}
              placeholder="2026-12-01T00:00:00Z"
              onChange={(event) => setAsOf(event.target.value)}
            />
          )}
        </Field>
        <WriteButton finance onClick={runNow} disabled={running}>
          {running ? "Running…" : asOf.trim() ? "Run as of then" : "Run now"}
        </WriteButton>
      </form>
      {error !== undefined && <ProblemNotice error={error} />}
      {progress && (
        <section className="panel" aria-labelledby="run-heading" aria-live="polite">
          <h2 id="run-heading">{progress.finished ? "Run finished" : "Running…"}</h2>
          <dl className="facts">
            <dt>As of</dt>
            <dd>{formatDateTime(progress.at)}</dd>
            <dt>Calls</dt>
            <dd>{progress.calls}</dd>
            <dt>Contracts billed</dt>
            <dd>{progress.contractsBilled}</dd>
            <dt>Invoices created</dt>
            <dd>{progress.invoicesCreated}</dd>
            <dt>Failures</dt>
            <dd>{progress.failures.length}</dd>
          </dl>
          {progress.failures.length > 0 && (
            <ul>
              {progress.failures.map((failure) => (
                <li key={`${failure.contractId} ${failure.billingCycle?.startTime}`}>
                  Contract <code>{failure.contractId}</code>: {failure.message}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      <LastRuns shown={RUNS_LISTED} onRunsPage />
    </section>
  );
}
