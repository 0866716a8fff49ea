import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { problemOf, serviceRoot } from "../api.js";
import { ConfirmButton } from "../components/confirm-button.js";
import { Day } from "../components/day.js";
import { Field } from "../components/field.js";
import { Panel } from "../components/panel.js";
import { ProblemNotice, QueryStatus } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { useSession } from "../session-context.js";

const QUERY_KEY = ["payment-provider", "stripe"];

/** The address Stripe must post to: the API gives a path below the service unless PUBLIC_URL made it absolute. */
const absoluteUrl = (url: string) => (url.startsWith("/") ? `${serviceRoot()}${url}` : url);

/**
 * Connects the account to Stripe, or replaces its keys. The keys go to the API and are never shown again: the
 * fields are password fields, emptied once the API took them.
 */
function ConnectForm({ replacing }: { replacing: boolean }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [secretKey, setSecretKey] = useState("");
  const [webhookSecret, setWebhookSecret] = useState("");
  const [apiBase, setApiBase] = useState("");
  const connect = useMutation({
    mutationFn: () =>
      api.collection.putStripe.mutate({ secretKey, webhookSecret, apiBase: apiBase.trim() || undefined }),
    onSuccess: () => {
      setSecretKey("");
      setWebhookSecret("");
      return queryClient.invalidateQueries({ queryKey: QUERY_KEY });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    connect.mutate();
  };
  const title = replacing ? "Replace the Stripe keys" : "Connect Stripe";
  return (
    <form className="stacked" onSubmit={submit} aria-label={title}>
      <Field
        id="stripe-secret-key"
        label="Secret key"
        path="secretKey"
        error={connect.error}
        hint="sk_… or a restricted rk_… key; sealed at rest and never shown again."
      >
        {(control) => (
          <input
            {...control}
            type="password"
            autoComplete="off"
            value={secretKey}
            onChange={(event) => setSecretKey(event.target.value)}
          />
        )}
      </Field>
      <Field
        id="stripe-webhook-secret"
        label="Webhook signing secret"
        path="webhookSecret"
        error={connect.error}
        hint="whsec_…, from the Stripe endpoint pointed at the webhook URL."
      >
        {(control) => (
          <input
            {...control}
            type="password"
            autoComplete="off"
            value={webhookSecret}
            onChange={(event) => setWebhookSecret(event.target.value)}
          />
        )}
      </Field>
      <Field
        id="stripe-api-base"
        label="API base (optional)"
        path="apiBase"
        error={connect.error}
        hint="Only for tests and proxies; default https://api.stripe.com."
      >
        {(control) => <input {...control} value={apiBase} onChange={(event) => setApiBase(event.target.value)} />}
      </Field>
      <WriteButton type="submit" disabled={connect.isPending}>
        {title}
      </WriteButton>
      {connect.error && <ProblemNotice error={connect.error} />}
    </form>
  );
}

/** The webhook URL with a button copying it (the clipboard may be refused: the URL stays selectable). */
function WebhookUrl({ url }: { url: string }) {
  const [copied, setCopied] = useState<string>();
  const copy = () =>
    navigator.clipboard.writeText(url).then(
      () => setCopied("Copied."),
      () => setCopied("The browser refused the clipboard: select the URL and copy it."),
    );
  return (
    <>
      <code id="stripe-webhook-url">{url}</code>{" "}
      <button type="button" onClick={copy} aria-describedby="stripe-webhook-url">
        Copy webhook URL
      </button>{" "}
      <span role="status" className="muted">
        {copied}
      </span>
    </>
  );
}

/** Settings › Payments: the account's Stripe connection, shown without its keys; connect, replace, disconnect. */
export function PaymentsPage() {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const connection = useQuery({
    queryKey: QUERY_KEY,
    queryFn: () => api.collection.getStripe.query({}),
    retry: false,
  });
  const disconnect = useMutation({
    mutationFn: () => api.collection.deleteStripe.mutate({}),
    onSuccess: () => queryClient.resetQueries({ queryKey: QUERY_KEY }),
  });
  const notConnected = connection.error && problemOf(connection.error).code === "NOT_FOUND";
  const provider = connection.data?.paymentProvider;
  return (
    <section>
      <h1>Payments</h1>
      <p className="muted">
        Invoices are charged through the payment provider connected here: at finalization when the account's autoCollect
        is on, again on the dunning policy's retry days, and on request with "Collect now".
      </p>
      {!notConnected && <QueryStatus query={connection} what="the Stripe connection" />}
      <div className="grid">
        {notConnected && (
          <Panel id="stripe" title="Stripe: not connected">
            <p>Nothing is charged until the account is connected.</p>
            <ConnectForm replacing={false} />
          </Panel>
        )}
        {provider && (
          <>
            <Panel id="stripe" title="Stripe: connected">
              <dl className="facts">
                <dt>Secret key</dt>
                <dd>
                  <code>…{provider.secretKeyLast4}</code> (the rest is never shown)
                </dd>
                <dt>API base</dt>
                <dd>
                  <code>{provider.apiBase}</code>
                </dd>
                <dt>Connected</dt>
                <dd>
                  <Day iso={provider.createdAt} />
                </dd>
                <dt>Keys changed</dt>
                <dd>
                  <Day iso={provider.updatedAt} />
                </dd>
                <dt>Webhook URL</dt>
                <dd>
                  <WebhookUrl url={absoluteUrl(provider.webhookUrl)} />
                </dd>
              </dl>
              <p className="muted">
                In Stripe, add a webhook endpoint at this URL for payment_intent.*, charge.refunded and charge.dispute.*
                events, and paste its signing secret here.
              </p>
              <ConfirmButton
                label="Disconnect Stripe"
                confirmLabel="Disconnect for good"
                warning="Its keys are deleted: nothing is charged, retried or refunded through Stripe from then on."
                onConfirm={() => disconnect.mutate()}
                pending={disconnect.isPending}
              />
              {disconnect.error && <ProblemNotice error={disconnect.error} />}
            </Panel>
            <Panel id="stripe-keys" title="Replace the keys">
              <ConnectForm replacing />
            </Panel>
          </>
        )}
      </div>
    </section>
  );
}
