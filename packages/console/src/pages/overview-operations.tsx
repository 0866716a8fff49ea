import { useQuery } from "@tanstack/react-query";
import type { Outputs } from "../api.js";
import { type Column, DataTable } from "../components/data-table.js";
import { Panel } from "../components/panel.js";
import { Empty, QueryStatus } from "../components/status.js";
import { formatDateTime } from "../format.js";
import { Link } from "../router.js";
import { useSession } from "../session-context.js";

type AuditEntry = Outputs["auditLog"]["list"]["entries"][number];
type Endpoint = Outputs["webhookEndpoints"]["list"]["endpoints"][number];
type Delivery = Outputs["webhookEndpoints"]["deliveries"]["deliveries"][number];

const RUNS_SHOWN = 5;
/** A run's entry names at most this many of its invoices (AUDITED_INVOICE_IDS in the server). */
const AUDITED_INVOICE_IDS = 100;
const ENDPOINTS_READ = 100;
const DELIVERIES_READ = 10;

/**
 * The last billing runs, whoever ran them (the scheduler, a token, the CLI), newest first, however old: the audit log
 * filtered by action (`GET /audit-log?action=billing.run`, index-served).
 */
export function LastRuns({ shown = RUNS_SHOWN, onRunsPage = false }: { shown?: number; onRunsPage?: boolean }) {
  const { api } = useSession();
  const runs = useQuery({
    queryKey: ["runs", shown],
    queryFn: async () => (await api.auditLog.list.query({ action: "billing.run", limit: shown })).entries,
  });
  const columns: Column<AuditEntry>[] = [
    { name: "When", cell: (entry) => <span className="nowrap">{formatDateTime(entry.at)}</span> },
    {
      name: "By",
      cell: (entry) =>
        entry.actor.type === "token" ? (
          <>
            token <code>{entry.actor.tokenId}</code> ({entry.actor.scope})
          </>
        ) : (
          entry.actor.type
        ),
    },
    {
      name: "Invoices made",
      numeric: true,
      cell: (entry) =>
        entry.references.length >= AUDITED_INVOICE_IDS ? `${AUDITED_INVOICE_IDS}+` : entry.references.length,
    },
  ];
  return (
    <Panel id="runs" title={onRunsPage ? `The last ${shown} runs` : "Last billing runs"} wide={onRunsPage}>
      <QueryStatus query={runs} what="billing runs" />
      {runs.data &&
        (runs.data.length === 0 ? (
          <Empty>No billing run is in the audit log yet.</Empty>
        ) : (
          <DataTable rows={runs.data} columns={columns} rowKey={(entry) => entry.id} />
        ))}
      {!onRunsPage && (
        <p>
          <Link to="/billing-runs">Run billing, and older runs</Link>
        </p>
      )}
    </Panel>
  );
}

interface Failing {
  endpoint: Endpoint;
  failed: number;
  read: number;
  last: Delivery;
}

/**
 * An endpoint fails when its newest delivery tried failed for good or is being retried after an error (one not tried
 * yet says nothing).
 */
const failing = (newest: Delivery | undefined) =>
  newest !== undefined && (newest.status === "FAILED" || (newest.status === "PENDING" && newest.attempts > 0));
const tried = (delivery: Delivery) => delivery.status !== "PENDING" || delivery.attempts > 0;

/** Endpoints whose newest delivery failed, with how many of their latest deliveries did and the last error. */
export function FailingEndpoints() {
  const { api } = useSession();
  const endpoints = useQuery({
    queryKey: ["overview", "failing-endpoints"],
    queryFn: async () => {
      const { endpoints: listed } = await api.webhookEndpoints.list.query({ limit: ENDPOINTS_READ });
      const found = await Promise.all(
        listed.map(async (endpoint): Promise<Failing | undefined> => {
          const { deliveries } = await api.webhookEndpoints.deliveries.query({
            endpointId: endpoint.id,
            limit: DELIVERIES_READ,
          });
          const newest = deliveries.find(tried);
          if (!newest || !failing(newest)) return undefined;
          const failed = deliveries.filter((delivery) => delivery.status === "FAILED").length;
          return { endpoint, failed, read: deliveries.length, last: newest };
        }),
      );
      return found.filter((entry): entry is Failing => entry !== undefined);
    },
  });
  const columns: Column<Failing>[] = [
    { name: "Endpoint", cell: ({ endpoint }) => <code>{endpoint.url}</code> },
    { name: "Failed", numeric: true, cell: ({ failed, read }) => `${failed} of the last ${read}` },
    {
      name: "Last error",
      cell: ({ last }) =>
        [last.lastStatusCode !== null && `HTTP ${last.lastStatusCode}`, last.lastError].filter(Boolean).join(" · ") ||
        "—",
    },
    { name: "Since", cell: ({ last }) => <span className="nowrap">{formatDateTime(last.createdAt)}</span> },
  ];
  return (
    <Panel id="failing-endpoints" title="Failing webhook endpoints">
      <QueryStatus query={endpoints} what="webhook endpoints" />
      {endpoints.data &&
        (endpoints.data.length === 0 ? (
          <Empty>Every webhook endpoint's last delivery went through.</Empty>
        ) : (
          <>
            <DataTable rows={endpoints.data} columns={columns} rowKey={({ endpoint }) => endpoint.id} />
            <p>
              <Link to="/webhooks">See the deliveries and resend them</Link>
            </p>
          </>
        ))}
    </Panel>
  );
}
