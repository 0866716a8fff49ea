import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { Outputs } from "../api.js";
import { Field } from "../components/field.js";
import { ProblemNotice } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { useSession } from "../session-context.js";

type Contract = Outputs["contracts"]["list"]["contracts"][number];

/**
 * Amends a contract's own deal terms from a UTC day (`PATCH /contracts/{id}` with `effectiveFrom`): its minimum
 * commitment (an amount a cycle or a term; empty: none) and a discount of the whole invoice (percent or amount off;
 * empty: none), each replacing what the contract had from that day on. An invoice is priced by the terms in force on
 * its cycle's first day (docs/decisions.md, "The contract's deal terms change by amendment").
 */
export function DealTermsForm({ contract }: { contract: Contract }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [commitment, setCommitment] = useState("");
  const [period, setPeriod] = useState<"CYCLE" | "TERM">("CYCLE");
  const [discountType, setDiscountType] = useState<"PERCENT" | "AMOUNT">("PERCENT");
  const [discount, setDiscount] = useState("");
  const [effectiveFrom, setEffectiveFrom] = useState("");
  const amend = useMutation({
    mutationFn: () =>
      api.contracts.update.mutate({
        contractId: contract.id,
        effectiveFrom: effectiveFrom ? `${effectiveFrom}T00:00:00Z` : "",
        minimumCommitment: commitment.trim() ? { amount: Number(commitment), period } : null,
        discounts: discount.trim() ? [{ type: discountType, value: Number(discount) }] : [],
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["contracts", contract.customerId] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    amend.mutate();
  };
  const id = (name: string) => `deal-${name}-${contract.id}`;
  return (
    <form className="stacked" onSubmit={submit} aria-label={`Deal terms of ${contract.name}`}>
      <Field
        id={id("commitment")}
        label="Minimum commitment (empty: none)"
        path="minimumCommitment.amount"
        error={amend.error}
      >
        {(control) => (
          <input
            {...control}
            inputMode="decimal"
            value={commitment}
            onChange={(event) => setCommitment(event.target.value)}
          />
        )}
      </Field>
      <Field id={id("period")} label="Committed per" path="minimumCommitment.period" error={amend.error}>
        {(control) => (
          <select {...control} value={period} onChange={(event) => setPeriod(event.target.value as "CYCLE" | "TERM")}>
            <option value="CYCLE">Cycle</option>
            <option value="TERM">Term</option>
          </select>
        )}
      </Field>
      <Field id={id("discount-type")} label="Discount of the whole invoice" path="discounts.0.type" error={amend.error}>
        {(control) => (
          <select
            {...control}
            value={discountType}
            onChange={(event) => setDiscountType(event.target.value as "PERCENT" | "AMOUNT")}
          >
            <option value="PERCENT">Percent off</option>
            <option value="AMOUNT">Amount off</option>
          </select>
        )}
      </Field>
      <Field id={id("discount")} label="Discount value (empty: none)" path="discounts.0.value" error={amend.error}>
        {(control) => (
          <input
            {...control}
            inputMode="decimal"
            value={discount}
            onChange={(event) => setDiscount(event.target.value)}
          />
        )}
      </Field>
      <Field id={id("from")} label="Deal terms from (UTC day)" path="effectiveFrom" error={amend.error}>
        {(control) => (
          <input
            {...control}
            type="date"
            value={effectiveFrom}
            onChange={(event) => setEffectiveFrom(event.target.value)}
          />
        )}
      </Field>
      <WriteButton type="submit" disabled={amend.isPending}>
        Amend deal terms
      </WriteButton>
      {amend.isSuccess && <p role="status">Deal terms amended.</p>}
      {amend.error && <ProblemNotice error={amend.error} />}
    </form>
  );
}
