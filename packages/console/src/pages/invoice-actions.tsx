import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { serviceRoot } from "../api.js";
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
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState("");
  const done = () => queryClient.invalidateQueries({ queryKey: ["invoice", invoice.id] });
  const finalize = useMutation({
    mutationFn: () => api.invoices.finalize.mutate({ invoiceId: invoice.id }),
    onSuccess: done,
  });
  const voidIt = useMutation({
    mutationFn: () => api.invoicePayments.void.mutate({ invoiceId: invoice.id, reason: "Voided in the console" }),
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
        {canVoid && (
          <WriteButton finance onClick={() => voidIt.mutate()} disabled={voidIt.isPending}>
            Void
          </WriteButton>
        )}
        <InvoiceDocumentButton invoiceId={invoice.id} />
      </div>
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

/**
 * The invoice's PDF. It needs the token, which a plain link cannot send, so it is fetched with the
 * Authorization header and opened from memory.
 */
function InvoiceDocumentButton({ invoiceId }: { invoiceId: string }) {
  const { token } = useSession();
  const [problem, setProblem] = useState<{ message: string; code: string; requestId: string | undefined }>();
  const open = async () => {
    setProblem(undefined);
    const response = await fetch(`${serviceRoot()}/invoices/${encodeURIComponent(invoiceId)}/pdf`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as { message?: string; code?: string };
      setProblem({
        message: body.message ?? response.statusText,
        code: body.code ?? `HTTP ${response.status}`,
        requestId: response.headers.get("x-request-id") ?? undefined,
      });
      return;
    }
    window.open(URL.createObjectURL(await response.blob()), "_blank", "noopener");
  };
  return (
    <>
      <button type="button" onClick={open}>
        Open PDF
      </button>
      {problem && <ProblemNotice problem={problem} />}
    </>
  );
}
