import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Field } from "../components/field.js";
import { ProblemNotice } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { useSession } from "../session-context.js";

/** Grants credits to a customer: an amount in the account's default currency, optionally expiring on a day. */
export function GrantForm({ customerId }: { customerId: string }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState("");
  const [expiresAt, setExpiresAt] = useState("");
  const grant = useMutation({
    mutationFn: () =>
      api.credits.grant.mutate({
        customerId,
        type: "Grant",
        amount: Number(amount),
        ...(expiresAt.trim() && { expiresAt: expiresAt.trim() }),
      }),
    onSuccess: () => {
      setAmount("");
      setExpiresAt("");
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: ["credit-balance", customerId] }),
        queryClient.invalidateQueries({ queryKey: ["credit-ledger", customerId] }),
      ]);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    grant.mutate();
  };
  return (
    <details>
      <summary>Grant credits</summary>
      <form className="stacked" onSubmit={submit} aria-label="Grant credits">
        <Field id="grant-amount" label="Amount" path="amount" error={grant.error}>
          {(control) => (
            <input
              {...control}
              inputMode="decimal"
              value={amount}
              onChange={(event) => setAmount(event.target.value)}
            />
          )}
        </Field>
        <Field id="grant-expires" label="Expires (ISO date-time; empty: never)" path="expiresAt" error={grant.error}>
          {(control) => (
            <input
              {...control}
              value={expiresAt}
              placeholder="2027-01-01T00:00:00Z"
              onChange={(event) => setExpiresAt(event.target.value)}
            />
          )}
        </Field>
        <WriteButton finance type="submit" disabled={grant.isPending || amount === ""}>
          Grant
        </WriteButton>
        {grant.error && <ProblemNotice error={grant.error} />}
      </form>
    </details>
  );
}
