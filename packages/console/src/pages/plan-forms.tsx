import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { Inputs } from "../api.js";
import { ConfirmButton } from "../components/confirm-button.js";
import { Field, parseJsonField } from "../components/field.js";
import { ProblemNotice } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { navigate } from "../router.js";
import { useSession } from "../session-context.js";

type Products = Inputs["plans"]["create"]["products"];

/** The example a products field starts from: one product, as the API takes it (docs/spec.md, "Products"). */
export const PRODUCTS_EXAMPLE = '[{ "displayName": "Platform", "pricing": { "type": "FLAT", "price": 49 } }]';
const PRODUCTS_HINT =
  "JSON, as the API takes products: each a displayName with its pricing (FLAT, PER_UNIT, GRADUATED…) or commitment.";

export function ProductsField({
  id,
  value,
  onChange,
  error,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  error: unknown;
}) {
  return (
    <Field id={id} label="Products" path="products" nested error={error} hint={PRODUCTS_HINT}>
      {(control) => (
        <textarea {...control} rows={5} cols={60} value={value} onChange={(event) => onChange(event.target.value)} />
      )}
    </Field>
  );
}

/** A new plan of the catalog: its key, name, currency and version 1's products; then its page. */
export function NewPlanForm() {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [key, setKey] = useState("");
  const [name, setName] = useState("");
  const [currency, setCurrency] = useState("USD");
  const [products, setProducts] = useState(PRODUCTS_EXAMPLE);
  const create = useMutation({
    mutationFn: () =>
      api.plans.create.mutate({
        key: key.trim(),
        name,
        currency: currency.trim().toUpperCase(),
        products: (parseJsonField(products, "products") ?? []) as Products,
      }),
    onSuccess: async ({ plan }) => {
      await queryClient.invalidateQueries({ queryKey: ["plans"] });
      navigate(`/plans/${encodeURIComponent(plan.key)}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <details className="panel">
      <summary>New plan</summary>
      <form className="stacked" onSubmit={submit} aria-label="New plan">
        <Field id="plan-key" label="Key (contracts name the plan by it)" path="key" error={create.error}>
          {(control) => <input {...control} value={key} onChange={(event) => setKey(event.target.value)} />}
        </Field>
        <Field id="plan-name" label="Name" path="name" error={create.error}>
          {(control) => <input {...control} value={name} onChange={(event) => setName(event.target.value)} />}
        </Field>
        <Field id="plan-currency" label="Currency" path="currency" error={create.error}>
          {(control) => (
            <input {...control} size={4} value={currency} onChange={(event) => setCurrency(event.target.value)} />
          )}
        </Field>
        <ProductsField id="plan-products" value={products} onChange={setProducts} error={create.error} />
        <WriteButton type="submit" disabled={create.isPending}>
          Create plan
        </WriteButton>
        {create.error && <ProblemNotice error={create.error} />}
      </form>
    </details>
  );
}

/**
 * A plan's changes: a new version (new terms; contracts stay on theirs until moved) and archiving (no new contract
 * may take it; those that follow it keep billing), which cannot be undone.
 */
export function PlanActions({ planId, archived, products }: { planId: string; archived: boolean; products: unknown }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [terms, setTerms] = useState(() => JSON.stringify(products, null, 1));
  const done = () => queryClient.invalidateQueries({ queryKey: ["plans"] });
  const addVersion = useMutation({
    mutationFn: () =>
      api.plans.addVersion.mutate({ planId, products: (parseJsonField(terms, "products") ?? []) as Products }),
    onSuccess: done,
  });
  const archive = useMutation({ mutationFn: () => api.plans.archive.mutate({ planId }), onSuccess: done });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    addVersion.mutate();
  };
  if (archived) return <p className="muted">Archived: no new contract may take it.</p>;
  return (
    <>
      <details>
        <summary>New version</summary>
        <form className="stacked" onSubmit={submit} aria-label="New version">
          <ProductsField id="version-products" value={terms} onChange={setTerms} error={addVersion.error} />
          <p className="muted">Contracts keep the version they follow until moved to the new one.</p>
          <WriteButton type="submit" disabled={addVersion.isPending}>
            Add version
          </WriteButton>
          {addVersion.error && <ProblemNotice error={addVersion.error} />}
        </form>
      </details>
      <div className="actions">
        <ConfirmButton
          label="Archive plan"
          confirmLabel="Archive for good"
          warning="No new contract may take it; contracts that follow it keep billing."
          onConfirm={() => archive.mutate()}
          pending={archive.isPending}
        />
      </div>
      {archive.error && <ProblemNotice error={archive.error} />}
    </>
  );
}
