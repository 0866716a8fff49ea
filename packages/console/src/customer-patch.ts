import type { Inputs } from "./api.js";

type CustomerUpdate = Omit<Inputs["customers"]["update"], "customerId">;

/** A customer as the edit form reads it (the fields `PATCH /customers/{id}` takes that the form shows). */
export interface EditableCustomer {
  id: string;
  name: string;
  externalId?: string | undefined;
  aliases?: string[] | undefined;
  taxId?: string | undefined;
  taxExempt?: boolean | undefined;
  netTermsDays?: number | undefined;
  contacts?: CustomerUpdate["contacts"];
  address?: CustomerUpdate["address"];
  customFields?: CustomerUpdate["customFields"];
}

/** What a person typed: every text as typed, the checkbox as ticked. */
export interface CustomerTyped {
  name: string;
  externalId: string;
  aliases: string;
  taxId: string;
  taxExempt: boolean;
  netTermsDays: string;
  email: string;
  addressText: string;
  city: string;
  postalCode: string;
  state: string;
  country: string;
  /** The custom fields as JSON, parsed by the caller (undefined when left empty). */
  customFields: CustomerUpdate["customFields"] | undefined;
}

const ADDRESS_KEYS = ["addressText", "city", "postalCode", "state", "country"] as const;

/** The form's starting values, from the stored customer. */
export function typedFrom(customer: EditableCustomer): Omit<CustomerTyped, "customFields"> & { customFields: string } {
  const address = customer.address ?? {};
  return {
    name: customer.name,
    externalId: customer.externalId ?? "",
    aliases: (customer.aliases ?? []).join(", "),
    taxId: customer.taxId ?? "",
    taxExempt: customer.taxExempt ?? false,
    netTermsDays: customer.netTermsDays === undefined ? "" : String(customer.netTermsDays),
    email: customer.contacts?.[0]?.email ?? "",
    addressText: address.addressText ?? "",
    city: address.city ?? "",
    postalCode: address.postalCode ?? "",
    state: address.state ?? "",
    country: address.country ?? "",
    customFields: customer.customFields?.length ? JSON.stringify(customer.customFields, null, 2) : "",
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The PATCH body: only the fields changed from the stored customer (fields given replace the stored ones, fields
 * left out are kept). A text emptied is left out (the API keeps it: it has no way to unset a field). The email is the
 * first contact's, the others kept; the address is replaced whole by the parts typed. A number typed that is not an
 * integer goes as typed, for the API to refuse on `netTermsDays`.
 */
export function customerPatch(stored: EditableCustomer, typed: CustomerTyped): CustomerUpdate {
  const patch: Record<string, unknown> = {};
  const textChange = (key: "name" | "externalId" | "taxId", value: string) => {
    const trimmed = value.trim();
    if (key === "name" ? trimmed !== stored.name : trimmed !== "" && trimmed !== (stored[key] ?? "")) {
      patch[key] = key === "name" ? value : trimmed;
    }
  };
  textChange("name", typed.name);
  textChange("externalId", typed.externalId);
  textChange("taxId", typed.taxId);
  if (typed.taxExempt !== (stored.taxExempt ?? false)) patch.taxExempt = typed.taxExempt;
  const aliases = typed.aliases
    .split(",")
    .map((alias) => alias.trim())
    .filter(Boolean);
  if (!same(aliases, stored.aliases ?? [])) patch.aliases = aliases;
  const days = typed.netTermsDays.trim();
  if (days !== "" && days !== String(stored.netTermsDays ?? "")) {
    patch.netTermsDays = /^-?\d+$/.test(days) ? Number(days) : days;
  }
  const email = typed.email.trim();
  const contacts = stored.contacts ?? [];
  if (email !== "" && email !== (contacts[0]?.email ?? "")) {
    patch.contacts = [{ ...contacts[0], email }, ...contacts.slice(1)];
  }
  const address = Object.fromEntries(
    ADDRESS_KEYS.flatMap((key) => (typed[key].trim() === "" ? [] : [[key, typed[key].trim()]])),
  );
  const storedAddress = ADDRESS_KEYS.map((key) => stored.address?.[key] ?? "");
  const typedAddress = ADDRESS_KEYS.map((key) => typed[key].trim());
  if (Object.keys(address).length > 0 && !same(typedAddress, storedAddress)) patch.address = address;
  if (typed.customFields !== undefined && !same(typed.customFields, stored.customFields ?? [])) {
    patch.customFields = typed.customFields;
  }
  return patch as CustomerUpdate;
}
