import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Outputs } from "../api.js";
import { type Column, DataTable } from "../components/data-table.js";
import { Pager, useCursorPages } from "../components/paging.js";
import { Panel } from "../components/panel.js";
import { Empty, ProblemNotice, QueryStatus } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { formatDateTime } from "../format.js";
import { useSession } from "../session-context.js";
import { EndpointActions, NewEndpointForm } from "./webhook-endpoint-forms.js";

const PAGE_SIZE = 20;

type Delivery = Outputs["webhookEndpoints"]["deliveries"]["deliveries"][number];
type Endpoint = Outputs["webhookEndpoints"]["list"]["endpoints"][number];

function Deliveries({ endpointId }: { endpointId: string }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const pages = useCursorPages();
  const deliveries = useQuery({
    queryKey: ["deliveries", endpointId, pages.cursor],
    queryFn: () => api.webhookEndpoints.deliveries.query({ endpointId, limit: PAGE_SIZE, cursor: pages.cursor }),
  });
  const resend = useMutation({
    mutationFn: (deliveryId: string) => api.webhookEndpoints.resend.mutate({ deliveryId }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["deliveries", endpointId] }),
  });
  const columns: Column<Delivery>[] = [
    { name: "Created", cell: (delivery) => formatDateTime(delivery.createdAt) },
    { name: "Event", cell: (delivery) => <code>{delivery.eventType}</code> },
    { name: "Status", cell: (delivery) => delivery.status },
    { name: "Attempts", numeric: true, cell: (delivery) => delivery.attempts },
    {
      name: "Last answer or error",
      cell: (delivery) =>
        [delivery.lastStatusCode !== null && `HTTP ${delivery.lastStatusCode}`, delivery.lastError]
          .filter(Boolean)
          .join("") || "—",
    },
    {
      name: "Actions",
      header: <span className="visually-hidden">Actions</span>,
      cell: (delivery) => (
        <WriteButton
          onClick={() => resend.mutate(delivery.id)}
          disabled={resend.isPending}
          aria-label={`Resend ${delivery.eventType} of ${formatDateTime(delivery.createdAt)}`}
        >
          Resend
        </WriteButton>
      ),
    },
  ];
  return (
    <Panel id="deliveries" title="Deliveries" wide>
      {resend.error && <ProblemNotice error={resend.error} />}
      {resend.data && (
        <p role="status">
          Delivery <code>{resend.data.delivery.id}</code> is queued again ({resend.data.delivery.status}).
        </p>
      )}
      <QueryStatus query={deliveries} what="deliveries" />
      {deliveries.data &&
        (deliveries.data.deliveries.length === 0 ? (
          <Empty>Nothing delivered to this endpoint yet.</Empty>
        ) : (
          <>
            <DataTable rows={deliveries.data.deliveries} columns={columns} rowKey={(delivery) => delivery.id} />
            <Pager
              label="Deliveries"
              pages={pages}
              nextCursor={deliveries.data.nextCursor}
              total={deliveries.data.total}
            />
          </>
        ))}
    </Panel>
  );
}

export function WebhooksPage() {
  const { api } = useSession();
  const pages = useCursorPages();
  const [chosen, setChosen] = useState<string>();
  const endpoints = useQuery({
    queryKey: ["webhook-endpoints", pages.cursor],
    queryFn: () => api.webhookEndpoints.list.query({ limit: PAGE_SIZE, cursor: pages.cursor }),
  });
  const endpointId = chosen ?? endpoints.data?.endpoints[0]?.id;
  const endpointColumns: Column<Endpoint>[] = [
    {
      name: "URL",
      cell: (endpoint) => (
        <>
          <code>{endpoint.url}</code>
          {endpoint.description && <div className="muted">{endpoint.description}</div>}
        </>
      ),
    },
    { name: "Status", cell: (endpoint) => endpoint.status },
    { name: "Events", cell: (endpoint) => endpoint.eventTypes.join(", ") || "every type" },
    {
      name: "Deliveries",
      header: <span className="visually-hidden">Deliveries</span>,
      cell: (endpoint) => (
        <button
          type="button"
          onClick={() => setChosen(endpoint.id)}
          aria-pressed={endpoint.id === endpointId}
          aria-label={`Show deliveries to ${endpoint.url}`}
        >
          Deliveries
        </button>
      ),
    },
    { name: "Actions", cell: (endpoint) => <EndpointActions endpoint={endpoint} /> },
  ];
  return (
    <section>
      <h1>Webhook endpoints</h1>
      <NewEndpointForm />
      <QueryStatus query={endpoints} what="webhook endpoints" />
      {endpoints.data &&
        (endpoints.data.endpoints.length === 0 ? (
          <Empty>No webhook endpoints yet: register one above.</Empty>
        ) : (
          <>
            <DataTable
              rows={endpoints.data.endpoints}
              columns={endpointColumns}
              rowKey={(endpoint) => endpoint.id}
              caption="Choose an endpoint to see its deliveries"
              rowProps={(endpoint) => ({ "aria-current": endpoint.id === endpointId ? "true" : undefined })}
            />
            <Pager
              label="Endpoints"
              pages={pages}
              nextCursor={endpoints.data.nextCursor}
              total={endpoints.data.total}
            />
          </>
        ))}
      {endpointId && <Deliveries key={endpointId} endpointId={endpointId} />}
    </section>
  );
}
