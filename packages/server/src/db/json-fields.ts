import type { CustomField } from "@billing/shared";

/**
 * A custom field's `value` is any JSON, including objects whose keys look like MongoDB operators
 * (`$set`) or paths (`a.b`). Stored as JSON text it stays data, whatever its keys.
 */
export type StoredCustomField = Omit<CustomField, "value"> & { valueJson?: string };

export const storeCustomFields = (fields: CustomField[] | undefined): StoredCustomField[] | undefined =>
  fields?.map(({ value, ...rest }) => (value === undefined ? rest : { ...rest, valueJson: JSON.stringify(value) }));

export const loadCustomFields = (fields: StoredCustomField[] | undefined): CustomField[] | undefined =>
  fields?.map(({ valueJson, ...rest }) => (valueJson === undefined ? rest : { ...rest, value: JSON.parse(valueJson) }));
