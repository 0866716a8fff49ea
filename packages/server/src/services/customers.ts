import type { Customer, CustomerCreate, CustomerUpdate } from "@billing/shared";
import { notFound } from "../domain/errors.js";
import { changesNothing } from "../domain/patch.js";
import type { CallScope } from "./call-scope.js";
import { requireLiveTaxRates } from "./tax-rates.js";
import { publishChange } from "./webhook-events.js";

/** Stores a new customer and publishes `customer.created`. */
export async function createCustomer({ repositories, accountId, log }: CallScope, input: CustomerCreate) {
  await requireLiveTaxRates(repositories, accountId, [{ path: "taxRateCodes", codes: input.taxRateCodes }]);
  const created = await repositories.customers.create(accountId, input);
  await publishChange(repositories, accountId, log, { type: "customer.created", data: created });
  return created;
}

/**
 * Applies the fields given and publishes `customer.updated`; a body that sets nothing writes and publishes nothing.
 * The customer is named by id or externalId (404 when the account has none).
 */
export async function updateCustomer(
  { repositories, accountId, log }: CallScope,
  idOrExternalId: string,
  changes: CustomerUpdate,
): Promise<Customer> {
  if (changesNothing(changes)) {
    const customer = await repositories.customers.get(accountId, idOrExternalId);
    if (!customer) throw notFound("Customer");
    return customer;
  }
  await requireLiveTaxRates(repositories, accountId, [{ path: "taxRateCodes", codes: changes.taxRateCodes }]);
  const updated = await repositories.customers.update(accountId, idOrExternalId, changes);
  if (!updated) throw notFound("Customer");
  await publishChange(repositories, accountId, log, { type: "customer.updated", data: updated });
  return updated;
}
