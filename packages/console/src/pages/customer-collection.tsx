import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { Outputs } from "../api.js";
import { serviceRoot } from "../api.js";
import { ConfirmButton } from "../components/confirm-button.js";
import { Day } from "../components/day.js";
import { Panel } from "../components/panel.js";
import { ProblemNotice } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { useSession } from "../session-context.js";

type Customer = Outputs["customers"]["get"]["customer"];

/** The portal's address: relative to the service unless PUBLIC_URL made it absolute. */
const absoluteUrl = (url: string) => (url.startsWith("/") ? `${serviceRoot()}${url}` : url);

const PAYMENT_METHODS = { NONE: "None on file", READY: "A default card is ready" } as const;

/**
 * The customer's collection: its customer at Stripe (or "Create in Stripe"), its payment method, autoCollect, and
 * its portal links: one made here is shown once (it is a secret link), every one can be revoked.
 */
export function CustomerCollection({ customer }: { customer: Customer }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const sync = useMutation({
    mutationFn: () => api.collection.syncCustomer.mutate({ customerId: customer.id }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["customer", customer.id] }),
  });
  const portal = useMutation({
    mutationFn: () => api.collection.createPortalSession.mutate({ customerId: customer.id }),
  });
  const revoke = useMutation({
    mutationFn: () => api.collection.revokePortalSessions.mutate({ customerId: customer.id }),
    onSuccess: () => portal.reset(),
  });
  const stripeId = customer.paymentProvider?.stripeCustomerId;
  return (
    <Panel id="customer-collection" title="Collection">
      <dl className="facts">
        <dt>Stripe customer</dt>
        <dd>{stripeId ? <code>{stripeId}</code> : "Not linked"}</dd>
        <dt>Payment method</dt>
        <dd>{customer.paymentMethod ? PAYMENT_METHODS[customer.paymentMethod] : "Unknown: not looked at yet"}</dd>
        <dt>Auto-collect</dt>
        <dd>{customer.autoCollect === undefined ? "As the account" : customer.autoCollect ? "On" : "Off"}</dd>
      </dl>
      <div className="actions">
        <WriteButton onClick={() => sync.mutate()} disabled={sync.isPending}>
          {stripeId ? "Refresh from Stripe" : "Create in Stripe"}
        </WriteButton>
        <WriteButton onClick={() => portal.mutate()} disabled={portal.isPending}>
          Create portal link
        </WriteButton>
        <ConfirmButton
          label="Revoke portal links"
          confirmLabel="Revoke every link"
          warning="Every portal link of this customer made until now stops working at once."
          onConfirm={() => revoke.mutate()}
          pending={revoke.isPending}
        />
      </div>
      {portal.data && (
        <div role="status" className="notice">
          <p>
            Portal link (shown once: copy it now), working until <Day iso={portal.data.expiresAt} />{" "}
            {new Date(portal.data.expiresAt).toISOString().slice(11, 16)} UTC:
          </p>
          <p>
            <code className="break">{absoluteUrl(portal.data.url)}</code>
          </p>
        </div>
      )}
      {revoke.data && (
        <p role="status">
          Links made until <Day iso={revoke.data.revokedAt} /> {revoke.data.revokedAt.slice(11, 19)} UTC are revoked.
        </p>
      )}
      {(sync.error ?? portal.error ?? revoke.error) && (
        <ProblemNotice error={sync.error ?? portal.error ?? revoke.error} />
      )}
    </Panel>
  );
}
