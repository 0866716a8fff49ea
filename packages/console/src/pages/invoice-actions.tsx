import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { DocumentButton } from "../components/document-button.js";
import { Panel } from "../components/panel.js";
import { ProblemNotice } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { useSession } from "../session-context.js";
import type { Invoice } from "./invoice-lines.js";

/**
 * The changes the API allows in the invoice's state: finalize a draft; void a draft or a finalized invoice nothing
 * was paid on; record a payment while something is due.
 */
export function InvoiceActions({ invoice }: { invoice: Invoice }) {
  const { api, accountId } = useSession();
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState("");
  const [voidReason, setVoidReason] = useState("");
  const [confirmingVoid, setConfirmingVoid] = useState(false);
  const done = () => queryClient.invalidateQueries({ queryKey: ["invoice", invoice.id] });
  const finalize = useMutation({
    mutationFn: () => api.invoices.finalize.mutate({ invoiceId: invoice.id }),
    onSuccess: done,
  });
  const voidIt = useMutation({
    mutationFn: () =>
      api.invoicePayments.void.mutate({ invoiceId: invoice.id, reason: voidReason.trim() || undefined }),
    onSuccess: done,
  });
  const pay = useMutation({
    mutationFn: () => api.invoicePayments.pay.mutate({ invoiceId: invoice.id, amount: Number(amount) }),
    onSuccess: () => {
      setAmount("");
      return done();
    },
  });
  const failed = finalize.error ?? voidIt.error ?? pay.error;
  const canVoid = invoice.status === "DRAFT" || (invoice.status === "FINALIZED" && invoice.amountPaid === 0);
  const canPay = invoice.status === "FINALIZED" && invoice.amountDue > 0;
  const submitVoid = (event: FormEvent) => {
    event.preventDefault();
    voidIt.mutate();
  };
  const submitPayment = (event: FormEvent) => {
    event.preventDefault();
    pay.mutate();
  };
  return (
    <Panel id="actions" title="Actions">
      <div className="actions">
        {invoice.status === "DRAFT" && (
          <WriteButton finance onClick={() => finalize.mutate()} disabled={finalize.isPending}>
            Finalize
          </WriteButton>
        )}
        {canVoid && !confirmingVoid && (
          <WriteButton finance onClick={() => setConfirmingVoid(true)}>
            Void
          </WriteButton>
        )}
        <DocumentButton path={`/invoices/${encodeURIComponent(invoice.id)}/pdf`} />
      </div>
      <p className="muted">
        The PDF's seller is this account: its legal name, address, tax id and email when set, else its name alone. The
        service's operator sets them: <code>{`PATCH /admin/accounts/${accountId}`}</code> with <code>legalName</code>,{" "}
        <code>address</code>, <code>taxId</code>, <code>email</code>.
      </p>
      {canVoid && confirmingVoid && (
        <form className="inline" onSubmit={submitVoid} aria-label="Void the invoice">
          <label htmlFor="void-reason">Why (kept in the invoice's history)</label>
          <input id="void-reason" value={voidReason} onChange={(event) => setVoidReason(event.target.value)} />
          <p className="muted">A voided invoice is void for good: nothing is owed on it, and it cannot change again.</p>
          <WriteButton finance type="submit" disabled={voidIt.isPending}>
            Void for good
          </WriteButton>
          <button type="button" onClick={() => setConfirmingVoid(false)}>
            Keep it
          </button>
        </form>
      )}
      {canPay && (
        <form className="inline" onSubmit={submitPayment}>
          <label htmlFor="payment-amount">Payment received ({invoice.currency})</label>
          <input
            id="payment-amount"
            inputMode="decimal"
            value={amount}
            onChange={(event) => setAmount(event.target.value)}
            required
          />
          <WriteButton finance type="submit" disabled={pay.isPending || amount === ""}>
            Record payment
          </WriteButton>
        </form>
      )}
      {!canVoid && !canPay && invoice.status !== "DRAFT" && (
        <p className="muted">
          {invoice.status === "VOIDED" ? "A voided invoice cannot change." : "Paid on: only a credit note changes it."}
        </p>
      )}
      {failed && <ProblemNotice error={failed} />}
    </Panel>
  );
}
