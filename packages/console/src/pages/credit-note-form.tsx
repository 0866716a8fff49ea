import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { Outputs } from "../api.js";
import { Field } from "../components/field.js";
import { ProblemNotice } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { useSession } from "../session-context.js";
import type { Invoice } from "./invoice-lines.js";

type CreditNote = Outputs["creditNotes"]["list"]["creditNotes"][number];

const REASON_CHOICES: [CreditNote["reason"], string][] = [
  ["DUPLICATE", "Duplicate"],
  ["PRODUCT_UNSATISFACTORY", "Product unsatisfactory"],
  ["ORDER_CHANGE", "Order change"],
  ["OTHER", "Other"],
];

/**
 * Issues a credit note on a finalized invoice: an amount taken off what it owes (OFFSET) or given back as credits
 * (CREDITS). The API decides what is allowed and says so on the field it names.
 */
export function CreditNoteForm({ invoice }: { invoice: Invoice }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState("");
  const [reason, setReason] = useState<CreditNote["reason"]>("OTHER");
  const [refund, setRefund] = useState<CreditNote["refund"]>("OFFSET");
  const create = useMutation({
    mutationFn: () => api.creditNotes.create.mutate({ invoiceId: invoice.id, amount: Number(amount), reason, refund }),
    onSuccess: () => {
      setAmount("");
      return queryClient.invalidateQueries({ queryKey: ["invoice", invoice.id] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form className="stacked" onSubmit={submit} aria-label="Issue a credit note">
      <h3>Issue a credit note</h3>
      <Field id="credit-note-amount" label={`Amount (${invoice.currency})`} path="amount" error={create.error}>
        {(control) => (
          <input {...control} inputMode="decimal" value={amount} onChange={(event) => setAmount(event.target.value)} />
        )}
      </Field>
      <Field id="credit-note-reason" label="Reason" path="reason" error={create.error}>
        {(control) => (
          <select {...control} value={reason} onChange={(event) => setReason(event.target.value as typeof reason)}>
            {REASON_CHOICES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field id="credit-note-refund" label="Refund" path="refund" error={create.error}>
        {(control) => (
          <select {...control} value={refund} onChange={(event) => setRefund(event.target.value as typeof refund)}>
            <option value="OFFSET">Take it off what is owed</option>
            <option value="CREDITS">Give it back as credits</option>
          </select>
        )}
      </Field>
      <WriteButton finance type="submit" disabled={create.isPending || amount === ""}>
        Issue credit note
      </WriteButton>
      {create.error && <ProblemNotice error={create.error} />}
    </form>
  );
}
