import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { Inputs, Outputs } from "../api.js";
import { CustomerName } from "../components/customer-name.js";
import { type Column, DataTable } from "../components/data-table.js";
import { Field, isoMoment, parseJsonField } from "../components/field.js";
import { ProblemNotice } from "../components/status.js";
import { formatDate, formatMoney, sumMoney } from "../format.js";
import { useSession } from "../session-context.js";
import { ProductsField } from "./plan-forms.js";

type Products = Inputs["plans"]["simulate"]["products"];
type Simulation = Outputs["plans"]["simulate"]["simulation"];
type Priced = Simulation["contracts"][number];

/** A change of price in words with its sign: `+$10.00`, `-$4.90`, `$0.00`. */
function changeText(change: number, currency: string): string {
  const shown = formatMoney(change, currency);
  return change > 0 ? `+${shown}` : shown;
}

/** The contracts' bills under their own terms and under the candidate's, with the change, and the sums. */
function SimulationResult({ simulation, currency }: { simulation: Simulation; currency: string }) {
  const columns: Column<Priced>[] = [
    { name: "Customer", cell: (row) => <CustomerName customerId={row.customerId} /> },
    { name: "Contract", cell: (row) => <code>{row.contractId}</code> },
    { name: "Current terms", numeric: true, cell: (row) => formatMoney(row.current, currency) },
    { name: "Candidate terms", numeric: true, cell: (row) => formatMoney(row.candidate, currency) },
    {
      name: "Change",
      numeric: true,
      cell: (row) => changeText(sumMoney(row.candidate, -row.current), currency),
    },
  ];
  const change = sumMoney(simulation.candidate, -simulation.current);
  const period = `${formatDate(simulation.from)} to ${formatDate(simulation.to)} (excluded)`;
  return (
    <div role="status">
      <p>
        Over {period}: {formatMoney(simulation.current, currency)} billed under the current terms,{" "}
        {formatMoney(simulation.candidate, currency)} under the candidate terms, a change of{" "}
        <strong>{changeText(change, currency)}</strong>.
      </p>
      {simulation.hasMore && (
        <p className="muted">Only the first contracts were priced (the call's limit): the sums cover these.</p>
      )}
      {simulation.contracts.length > 0 && (
        <DataTable
          rows={simulation.contracts}
          columns={columns}
          rowKey={(row) => row.contractId}
          caption="Each contract over the period, its overrides kept"
        />
      )}
    </div>
  );
}

/**
 * What candidate terms would have billed the plan's contracts over a past period, beside what their own terms billed
 * (POST /plans/{planId}/simulate). Stores nothing: a read token may run it too.
 */
export function PlanSimulation({
  planId,
  currency,
  products,
}: {
  planId: string;
  currency: string;
  products: unknown;
}) {
  const { api } = useSession();
  const [terms, setTerms] = useState(() => JSON.stringify(products, null, 1));
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const simulate = useMutation({
    mutationFn: () =>
      api.plans.simulate.mutate({
        planId,
        products: (parseJsonField(terms, "products") ?? []) as Products,
        from: isoMoment(from) ?? "",
        to: isoMoment(to) ?? "",
      }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    simulate.mutate();
  };
  return (
    <details>
      <summary>Simulate new prices</summary>
      <form className="stacked" onSubmit={submit} aria-label="Simulate new prices">
        <ProductsField id="simulation-products" value={terms} onChange={setTerms} error={simulate.error} />
        <Field id="simulation-from" label="From (YYYY-MM-DD)" path="from" error={simulate.error}>
          {(control) => <input {...control} size={10} value={from} onChange={(event) => setFrom(event.target.value)} />}
        </Field>
        <Field id="simulation-to" label="To, excluded (YYYY-MM-DD, not after today)" path="to" error={simulate.error}>
          {(control) => <input {...control} size={10} value={to} onChange={(event) => setTo(event.target.value)} />}
        </Field>
        <p className="muted">Prices the contracts' stored usage of the period; nothing is changed or sent.</p>
        <button type="submit" disabled={simulate.isPending}>
          Simulate
        </button>
        {simulate.error && <ProblemNotice error={simulate.error} />}
      </form>
      {simulate.data && <SimulationResult simulation={simulate.data.simulation} currency={currency} />}
    </details>
  );
}
