import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Field } from "../components/field.js";
import { ProblemNotice } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { navigate } from "../router.js";
import { useSession } from "../session-context.js";

/** Creates a customer from a name and, optionally, the caller's own id for it; then opens its page. */
export function NewCustomerForm() {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [externalId, setExternalId] = useState("");
  const create = useMutation({
    mutationFn: () =>
      api.customers.create.mutate({ name, ...(externalId.trim() && { externalId: externalId.trim() }) }),
    onSuccess: async ({ customer }) => {
      await queryClient.invalidateQueries({ queryKey: ["customers"] });
      navigate(`/customers/${encodeURIComponent(customer.id)}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <details className="panel">
      <summary>New customer</summary>
      <form className="stacked" onSubmit={submit} aria-label="New customer">
        <Field id="customer-name" label="Name (unique in the account)" path="name" error={create.error}>
          {(control) => <input {...control} value={name} onChange={(event) => setName(event.target.value)} />}
        </Field>
        <Field id="customer-external-id" label="External id (optional)" path="externalId" error={create.error}>
          {(control) => (
            <input {...control} value={externalId} onChange={(event) => setExternalId(event.target.value)} />
          )}
        </Field>
        <WriteButton type="submit" disabled={create.isPending}>
          Create customer
        </WriteButton>
        {create.error && <ProblemNotice error={create.error} />}
      </form>
    </details>
  );
}
