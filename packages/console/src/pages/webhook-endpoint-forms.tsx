import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { Inputs, Outputs } from "../api.js";
import { ConfirmButton } from "../components/confirm-button.js";
import { Field } from "../components/field.js";
import { ProblemNotice } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { useSession } from "../session-context.js";

type Endpoint = Outputs["webhookEndpoints"]["list"]["endpoints"][number];
type EventType = Endpoint["eventTypes"][number];
type EndpointChange = Omit<Inputs["webhookEndpoints"]["update"], "endpointId">;

/** Event types typed as `invoice.finalized, invoice.paid`; empty: every type. The API checks each by its index. */
const eventTypesOf = (typed: string) => typed.split(/[,\s]+/).filter(Boolean) as EventType[];

/** A signing secret, shown once: the API never shows it again. */
function Secret({ secret, what }: { secret: string; what: string }) {
  return (
    <p role="status" className="notice">
      {what} Its signing secret, shown only this once: <code>{secret}</code>
    </p>
  );
}

/** The fields an endpoint is made or edited with: its URL, the event types it gets and a description. */
function EndpointFields({
  prefix,
  error,
  url,
  setUrl,
  eventTypes,
  setEventTypes,
  description,
  setDescription,
}: {
  prefix: string;
  error: unknown;
  url: string;
  setUrl: (value: string) => void;
  eventTypes: string;
  setEventTypes: (value: string) => void;
  description: string;
  setDescription: (value: string) => void;
}) {
  return (
    <>
      <Field id={`${prefix}-url`} label="URL (https)" path="url" error={error}>
        {(control) => <input {...control} value={url} onChange={(event) => setUrl(event.target.value)} />}
      </Field>
      <Field
        id={`${prefix}-events`}
        label="Event types (comma separated; empty: every type)"
        path="eventTypes"
        nested
        error={error}
      >
        {(control) => (
          <input
            {...control}
            value={eventTypes}
            placeholder="invoice.finalized, invoice.paid"
            onChange={(event) => setEventTypes(event.target.value)}
          />
        )}
      </Field>
      <Field id={`${prefix}-description`} label="Description (optional)" path="description" error={error}>
        {(control) => (
          <input {...control} value={description} onChange={(event) => setDescription(event.target.value)} />
        )}
      </Field>
    </>
  );
}

export function NewEndpointForm() {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState("");
  const [eventTypes, setEventTypes] = useState("");
  const [description, setDescription] = useState("");
  const create = useMutation({
    mutationFn: () =>
      api.webhookEndpoints.create.mutate({
        url: url.trim(),
        ...(eventTypes.trim() && { eventTypes: eventTypesOf(eventTypes) }),
        ...(description.trim() && { description: description.trim() }),
      }),
    onSuccess: () => {
      setUrl("");
      setEventTypes("");
      setDescription("");
      return queryClient.invalidateQueries({ queryKey: ["webhook-endpoints"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <details className="panel">
      <summary>New webhook endpoint</summary>
      <form className="stacked" onSubmit={submit} aria-label="New webhook endpoint">
        <EndpointFields
          prefix="endpoint-new"
          error={create.error}
          {...{ url, setUrl, eventTypes, setEventTypes, description, setDescription }}
        />
        <WriteButton type="submit" disabled={create.isPending}>
          Create endpoint
        </WriteButton>
        {create.error && <ProblemNotice error={create.error} />}
      </form>
      {create.data && <Secret secret={create.data.secret} what={`${create.data.endpoint.url} is registered.`} />}
    </details>
  );
}

/**
 * What may be done to one endpoint: edit its URL, types and description; disable it (deliveries stop) or enable it
 * again; rotate its secret or delete it, each asked twice since neither can be undone.
 */
export function EndpointActions({ endpoint }: { endpoint: Endpoint }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [url, setUrl] = useState(endpoint.url);
  const [eventTypes, setEventTypes] = useState(endpoint.eventTypes.join(", "));
  const [description, setDescription] = useState(endpoint.description ?? "");
  const done = () => queryClient.invalidateQueries({ queryKey: ["webhook-endpoints"] });
  const update = useMutation({
    mutationFn: (change: EndpointChange) => api.webhookEndpoints.update.mutate({ endpointId: endpoint.id, ...change }),
    onSuccess: () => {
      setEditing(false);
      return done();
    },
  });
  const rotate = useMutation({
    mutationFn: () => api.webhookEndpoints.rotateSecret.mutate({ endpointId: endpoint.id }),
  });
  const remove = useMutation({
    mutationFn: () => api.webhookEndpoints.delete.mutate({ endpointId: endpoint.id }),
    onSuccess: done,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({
      url: url.trim(),
      eventTypes: eventTypesOf(eventTypes),
      ...(description.trim() && { description: description.trim() }),
    });
  };
  const enabled = endpoint.status === "ENABLED";
  const failed = update.error ?? rotate.error ?? remove.error;
  return (
    <div className="stacked">
      <div className="actions">
        <WriteButton onClick={() => setEditing(!editing)} aria-expanded={editing} aria-label={`Edit ${endpoint.url}`}>
          Edit
        </WriteButton>
        <WriteButton
          onClick={() => update.mutate({ status: enabled ? "DISABLED" : "ENABLED" })}
          disabled={update.isPending}
          aria-label={`${enabled ? "Disable" : "Enable"} ${endpoint.url}`}
        >
          {enabled ? "Disable" : "Enable"}
        </WriteButton>
        <ConfirmButton
          label="Rotate secret"
          name={`Rotate secret of ${endpoint.url}`}
          confirmLabel="Rotate now"
          warning="The old secret stops signing: the receiver must take the new one."
          onConfirm={() => rotate.mutate()}
          pending={rotate.isPending}
        />
        <ConfirmButton
          label="Delete"
          name={`Delete ${endpoint.url}`}
          confirmLabel="Delete for good"
          warning="Nothing is delivered to it again."
          onConfirm={() => remove.mutate()}
          pending={remove.isPending}
        />
      </div>
      {editing && (
        <form className="stacked" onSubmit={submit} aria-label={`Edit ${endpoint.url}`}>
          <EndpointFields
            prefix={`endpoint-${endpoint.id}`}
            error={update.error}
            {...{ url, setUrl, eventTypes, setEventTypes, description, setDescription }}
          />
          <WriteButton type="submit" disabled={update.isPending}>
            Save endpoint
          </WriteButton>
        </form>
      )}
      {rotate.data && <Secret secret={rotate.data.secret} what="The secret is rotated." />}
      {failed && <ProblemNotice error={failed} />}
    </div>
  );
}
