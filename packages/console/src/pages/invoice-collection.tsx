import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Outputs } from "../api.js";
import { Day } from "../components/day.js";
import { Panel } from "../components/panel.js";
import { ProblemNotice } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { formatMoney } from "../format.js";
import { useSession } from "../session-context.js";
import type { Invoice } from "./invoice-lines.js";

type Attempt = NonNullable<Outputs["collection"]["collect"]["attempt"]>;

/** Why "Collect now" cannot charge this invoice, or undefined when it can. */
export function collectBlocked(invoice: Invoice): string | undefined {
  if (invoice.status === "DRAFT") return "A draft is not charged: finalize it first.";
  if (invoice.status === "VOIDED") return "A voided invoice is not charged.";
  if (invoice.amountDue <= 0) return "Nothing is due on this invoice.";
  return undefined;
}

const ATTEMPT_STATES: Record<Attempt["status"], string> = {
  PENDING: "Pending (sent again with the same idempotency key on the next try)",
  SUCCEEDED: "Succeeded",
  FAILED: "Failed",
};

/**
 * The invoice's collection: whether dunning is chasing it, its dispute, and "Collect now" (one charge through the
 * payment provider, whatever autoCollect says), disabled with the reason when it cannot charge.
 */
export function InvoiceCollection({ invoice }: { invoice: Invoice }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const blocked = collectBlocked(invoice);
  // Dunning state: whether the invoice is among the customer's invoices being chased (`dunning=active`).
  const chased = useQuery({
    queryKey: ["invoice", invoice.id, "dunning"],
    queryFn: () => api.invoices.list.query({ customerId: invoice.customerId, dunning: "active", limit: 100 }),
    enabled: invoice.status === "FINALIZED",
  });
  const collect = useMutation({
    mutationFn: () => api.collection.collect.mutate({ invoiceId: invoice.id }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["invoice", invoice.id] }),
  });
  const inDunning = chased.data?.invoices.some((listed) => listed.id === invoice.id) ?? false;
  const attempt = collect.data?.attempt;
  const dunningText =
    invoice.billingStatus === "Uncollectible"
      ? "Given up: marked uncollectible (a payment or credit note still closes it)."
      : inDunning
        ? "Being chased: a charge failed; retries and reminders follow the account's dunning policy."
        : invoice.status === "FINALIZED" && invoice.amountDue > 0
          ? "Not in dunning."
          : "Nothing to chase.";
  return (
    <Panel id="collection" title="Collection">
      <dl className="facts">
        <dt>Dunning</dt>
        <dd>{chased.isPending && invoice.status === "FINALIZED" ? "Looking…" : dunningText}</dd>
        <dt>Dispute</dt>
        <dd>
          {invoice.dispute ? (
            <span className="badge overdue">
              DISPUTED: {invoice.dispute.status}
              {invoice.dispute.reason && ` (${invoice.dispute.reason})`}, payment {invoice.dispute.paymentId}
            </span>
          ) : (
            "None"
          )}
        </dd>
      </dl>
      <p>
        <WriteButton
          finance
          onClick={() => collect.mutate()}
          disabled={blocked !== undefined || collect.isPending}
          aria-describedby={blocked ? "collect-blocked" : undefined}
        >
          Collect now
        </WriteButton>{" "}
        {blocked && (
          <span id="collect-blocked" className="muted">
            {blocked}
          </span>
        )}
        {!blocked && (
          <span className="muted">
            Charges {formatMoney(invoice.amountDue, invoice.currency)} to the customer's default card.
          </span>
        )}
      </p>
      {attempt && (
        <table aria-label="Collection attempt">
          <caption>Latest attempt</caption>
          <thead>
            <tr>
              <th scope="col">Attempt</th>
              <th scope="col">Status</th>
              <th scope="col">Provider payment</th>
              <th scope="col">Error</th>
              <th scope="col">Made</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>{attempt.number}</td>
              <td>{ATTEMPT_STATES[attempt.status]}</td>
              <td>{attempt.providerPaymentId ?? "—"}</td>
              <td>{attempt.failureMessage ?? "—"}</td>
              <td>
                <Day iso={attempt.createdAt} />
              </td>
            </tr>
          </tbody>
        </table>
      )}
      {collect.isSuccess && !attempt && <p role="status">Nothing was charged: nothing is due.</p>}
      {collect.error && <ProblemNotice error={collect.error} />}
    </Panel>
  );
}
