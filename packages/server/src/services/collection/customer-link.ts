import type { Customer } from "@billing/shared";
import { conflict, notFound } from "../../domain/errors.js";
import type { CallScope } from "../call-scope.js";
import { publishChange } from "../webhook-events.js";
import { connectedProvider } from "./connections.js";

/**
 * Links the customer to a customer at the account's provider: the one it is linked to already, else a new one (its
 * creation keyed by our customer's id, so a repeat makes none twice); then records whether it has a default payment
 * method. 409 when no provider is connected.
 */
export async function syncCustomer(call: CallScope, idOrExternalId: string): Promise<Customer> {
  const { repositories, accountId, log } = call;
  const customer = await repositories.customers.get(accountId, idOrExternalId);
  if (!customer) throw notFound("Customer");
  const provider = await connectedProvider(call);
  if (!provider) throw conflict("No payment provider is connected: PUT /payment-providers/stripe first");
  const { module, connection } = provider;
  const customerRef =
    module.customerRefOf(customer) ??
    (await module.createCustomer(connection, customer, `customer-sync-${accountId}-${customer.id}`));
  const method = await module.defaultPaymentMethod(connection, customerRef);
  const updated = await repositories.customers.setPaymentLink(accountId, customer.id, {
    paymentProvider: module.linkOf(customerRef),
    paymentMethod: method ? "READY" : "NONE",
  });
  if (!updated) throw notFound("Customer");
  await publishChange(repositories, accountId, log, { type: "customer.updated", data: updated });
  return updated;
}
