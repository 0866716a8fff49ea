import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Field } from "../components/field.js";
import { ProblemNotice } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { useSession } from "../session-context.js";

interface Editable {
  id: string;
  name: string;
  taxId?: string | undefined;
  taxExempt?: boolean | undefined;
}

/** Edits a customer's name, tax id and tax exemption (`PATCH /customers/{id}`: fields given replace the stored ones). */
export function EditCustomerForm({ customer }: { customer: Editable }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [name, setName] = useState(customer.name);
  const [taxId, setTaxId] = useState(customer.taxId ?? "");
  const [taxExempt, setTaxExempt] = useState(customer.taxExempt ?? false);
  const update = useMutation({
    mutationFn: () =>
      api.customers.update.mutate({
        customerId: customer.id,
        name,
        taxExempt,
        ...(taxId.trim() && { taxId: taxId.trim() }),
      }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ["customer", customer.id] });
      await queryClient.invalidateQueries({ queryKey: ["customers"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate();
  };
  return (
    <details className="panel">
      <summary>Edit customer</summary>
      <form className="stacked" onSubmit={submit} aria-label="Edit customer">
        <Field id="edit-customer-name" label="Name (unique in the account)" path="name" error={update.error}>
          {(control) => <input {...control} value={name} onChange={(event) => setName(event.target.value)} />}
        </Field>
        <Field id="edit-customer-tax-id" label="Tax id (optional)" path="taxId" error={update.error}>
          {(control) => <input {...control} value={taxId} onChange={(event) => setTaxId(event.target.value)} />}
        </Field>
        <label>
          <input type="checkbox" checked={taxExempt} onChange={(event) => setTaxExempt(event.target.checked)} /> Tax
          exempt (its invoices carry no tax and say so)
        </label>
        <WriteButton type="submit" disabled={update.isPending}>
          Save customer
        </WriteButton>
        {update.isSuccess && <p role="status">Saved.</p>}
        {update.error && <ProblemNotice error={update.error} />}
      </form>
    </details>
  );
}
