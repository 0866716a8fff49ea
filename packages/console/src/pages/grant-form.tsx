import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Field } from "../components/field.js";
import { ProblemNotice } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { useSession } from "../session-context.js";

/** `recurrence` of `POST /credits` from the form's fields: every N months, optionally N periods and a rollover. */
function recurrenceOf(months: string, count: string, rollover: string) {
  return {
    every: { unit: "MONTH" as const, value: Number(months) },
    ...(count.trim() && { count: Number(count) }),
    ...(rollover.trim() && { rollover: { maxAmount: Number(rollover) } }),
  };
}

/**
 * Grants credits to a customer: an amount in the account's default currency, optionally expiring on a day, or
 * recurring every few months (each period's grant expires at the next period's start, up to a rollover carried over;
 * docs/decisions.md, "Recurring credits and rollover").
 */
export function GrantForm({ customerId }: { customerId: string }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState("");
  const [expiresAt, setExpiresAt] = useState("");
  const [recurs, setRecurs] = useState(false);
  const [months, setMonths] = useState("1");
  const [count, setCount] = useState("");
  const [rollover, setRollover] = useState("");
  const grant = useMutation({
    mutationFn: () =>
      api.credits.grant.mutate({
        customerId,
        type: "Grant",
        amount: Number(amount),
        ...(recurs
          ? { recurrence: recurrenceOf(months, count, rollover) }
          : expiresAt.trim() && { expiresAt: expiresAt.trim() }),
      }),
    onSuccess: () => {
      for (const clear of [setAmount, setExpiresAt, setCount, setRollover]) clear("");
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
  const text = (id: string, label: string, path: string, state: [string, (value: string) => void], hint = "") => (
    <Field id={id} label={label} path={path} error={grant.error}>
      {(control) => (
        <input {...control} value={state[0]} placeholder={hint} onChange={(event) => state[1](event.target.value)} />
      )}
    </Field>
  );
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
        <label>
          <input type="checkbox" checked={recurs} onChange={(event) => setRecurs(event.target.checked)} /> Recurs every
          few months
        </label>
        {recurs ? (
          <>
            {text("grant-every", "Every (months, 1 to 12)", "recurrence.every.value", [months, setMonths])}
            {text("grant-count", "Periods in all (empty: until stopped)", "recurrence.count", [count, setCount])}
            {text("grant-rollover", "Rolls over at most (empty: none)", "recurrence.rollover.maxAmount", [
              rollover,
              setRollover,
            ])}
          </>
        ) : (
          text(
            "grant-expires",
            "Expires (ISO date-time; empty: never)",
            "expiresAt",
            [expiresAt, setExpiresAt],
            "2027-01-01T00:00:00Z",
          )
        )}
        <WriteButton finance type="submit" disabled={grant.isPending || amount === ""}>
          Grant
        </WriteButton>
        {grant.error && <ProblemNotice error={grant.error} />}
      </form>
    </details>
  );
}
