import { notFound } from "../domain/errors.js";
import type { Repositories } from "../repositories/index.js";

/**
 * The service id of the customer a request names, by id or externalId (as GET /customers/{customerId}): what the
 * resource referencing it stores. Another account's customer answers exactly like a missing one (404), and a
 * mistyped id is caught rather than stored or answered with empty data.
 */
export async function requireCustomer(
  ctx: { repositories: Repositories; accountId: string },
  idOrExternalId: string,
): Promise<string> {
  const customerId = await ctx.repositories.customers.idOf(ctx.accountId, idOrExternalId);
  if (customerId === undefined) throw notFound("Customer");
  return customerId;
}
