import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Field, parseJsonField } from "../components/field.js";
import { ProblemNotice } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { type CustomerTyped, customerPatch, type EditableCustomer, typedFrom } from "../customer-patch.js";
import { useSession } from "../session-context.js";

type Typed = ReturnType<typeof typedFrom>;
type TextKey = Exclude<keyof Typed, "taxExempt">;

/** The text fields, each with its label and the API's field its refusal names. */
const TEXTS: { key: TextKey; label: string; path: string; hint?: string }[] = [
  { key: "name", label: "Name (unique in the account)", path: "name" },
  { key: "externalId", label: "External id", path: "externalId" },
  { key: "aliases", label: "Aliases", path: "aliases", hint: "Comma-separated, e.g. the customerAlias of events" },
  { key: "email", label: "Billing email", path: "contacts.0.email", hint: "The first contact's; others are kept" },
  { key: "taxId", label: "Tax id (optional)", path: "taxId" },
  { key: "netTermsDays", label: "Payment terms (days)", path: "netTermsDays", hint: "0–365; empty: the account's" },
  { key: "addressText", label: "Address", path: "address.addressText" },
  { key: "city", label: "City", path: "address.city" },
  { key: "postalCode", label: "Postal code", path: "address.postalCode" },
  { key: "state", label: "State or region", path: "address.state" },
  { key: "country", label: "Country", path: "address.country" },
];

/**
 * Edits what `PATCH /customers/{id}` takes besides payment set-up: name, ids, aliases, billing email, tax, payment
 * terms, address and custom fields. Only the fields changed are sent (fields given replace the stored ones).
 */
export function EditCustomerForm({ customer }: { customer: EditableCustomer }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [typed, setTyped] = useState<Typed>(() => typedFrom(customer));
  const update = useMutation({
    mutationFn: () => {
      const customFields = parseJsonField(typed.customFields, "customFields") as CustomerTyped["customFields"];
      return api.customers.update.mutate({
        customerId: customer.id,
        ...customerPatch(customer, { ...typed, customFields }),
      });
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ["customer", customer.id] });
      await queryClient.invalidateQueries({ queryKey: ["customers"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate();
  };
  const set = (key: keyof Typed, value: string | boolean) => setTyped((before) => ({ ...before, [key]: value }));
  return (
    <details className="panel">
      <summary>Edit customer</summary>
      <form className="stacked" onSubmit={submit} aria-label="Edit customer">
        {TEXTS.map(({ key, label, path, hint }) => (
          <Field
            key={key}
            id={`edit-customer-${key}`}
            label={label}
            path={path}
            error={update.error}
            {...(hint && { hint })}
          >
            {(control) => <input {...control} value={typed[key]} onChange={(event) => set(key, event.target.value)} />}
          </Field>
        ))}
        <label>
          <input
            type="checkbox"
            checked={typed.taxExempt}
            onChange={(event) => set("taxExempt", event.target.checked)}
          />{" "}
          Tax exempt (its invoices carry no tax and say so)
        </label>
        <Field
          id="edit-customer-custom-fields"
          label="Custom fields (JSON)"
          path="customFields"
          nested
          hint='A list, e.g. [{"serviceCustomFieldName": "region", "value": "EU"}]'
          error={update.error}
        >
          {(control) => (
            <textarea
              {...control}
              rows={3}
              value={typed.customFields}
              onChange={(event) => set("customFields", event.target.value)}
            />
          )}
        </Field>
        <p className="muted">A field emptied is kept as it was: the API has no way to unset it.</p>
        <WriteButton type="submit" disabled={update.isPending}>
          Save customer
        </WriteButton>
        {update.isSuccess && <p role="status">Saved.</p>}
        {update.error && <ProblemNotice error={update.error} />}
      </form>
    </details>
  );
}
