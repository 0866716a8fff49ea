import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Pager, useCursorPages } from "../components/paging.js";
import { Empty, ProblemNotice, QueryStatus } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { formatDateTime } from "../format.js";
import { useSession } from "../session-context.js";

const PAGE_SIZE = 20;

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
  return (
    <section className="panel wide" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
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
            <table>
              <thead>
                <tr>
                  <th scope="col">Created</th>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="number">
                    Attempts
                  </th>
                  <th scope="col">Last answer or error</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {deliveries.data.deliveries.map((delivery) => (
                  <tr key={delivery.id}>
                    <td>{formatDateTime(delivery.createdAt)}</td>
                    <td>
                      <code>{delivery.eventType}</code>
                    </td>
                    <td>{delivery.status}</td>
                    <td className="number">{delivery.attempts}</td>
                    <td>
                      {delivery.lastStatusCode !== null && `HTTP ${delivery.lastStatusCode}`}
                      {delivery.lastError}
                      {delivery.lastStatusCode === null && delivery.lastError === null && "—"}
                    </td>
                    <td>
                      <WriteButton
                        onClick={() => resend.mutate(delivery.id)}
                        disabled={resend.isPending}
                        aria-label={`Resend ${delivery.eventType} of ${formatDateTime(delivery.createdAt)}`}
                      >
                        Resend
                      </WriteButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager
              label="Deliveries"
              pages={pages}
              nextCursor={deliveries.data.nextCursor}
              total={deliveries.data.total}
            />
          </>
        ))}
    </section>
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
  return (
    <section>
      <h1>Webhook endpoints</h1>
      <QueryStatus query={endpoints} what="webhook endpoints" />
      {endpoints.data &&
        (endpoints.data.endpoints.length === 0 ? (
          <Empty>No webhook endpoints yet: register one through the API.</Empty>
        ) : (
          <>
            <table>
              <caption>Choose an endpoint to see its deliveries</caption>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Status</th>
                  <th scope="col">Events</th>
                  <th scope="col">
                    <span className="visually-hidden">Deliveries</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {endpoints.data.endpoints.map((endpoint) => (
                  <tr key={endpoint.id} aria-current={endpoint.id === endpointId ? "true" : undefined}>
                    <td>
                      <code>{endpoint.url}</code>
                      {endpoint.description && <div className="muted">{endpoint.description}</div>}
                    </td>
                    <td>{endpoint.status}</td>
                    <td>{endpoint.eventTypes.join(", ") || "every type"}</td>
                    <td>
                      <button
                        type="button"
                        onClick={() => setChosen(endpoint.id)}
                        aria-pressed={endpoint.id === endpointId}
                        aria-label={`Show deliveries to ${endpoint.url}`}
                      >
                        Deliveries
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
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
