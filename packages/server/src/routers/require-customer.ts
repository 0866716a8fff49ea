import { notFound } from "../domain/errors.js";
import type { Repositories } from "../repositories/index.js";

/**
 * A customer named by a request must be the caller's: another account's customer answers exactly like a
 * missing one (404), and a mistyped id is caught rather than stored or answered with empty data.
 */
export async function requireCustomer(ctx: { repositories: Repositories; accountId: string }, customerId: string) {
  if (!(await ctx.repositories.customers.exists(ctx.accountId, customerId))) throw notFound("Customer");
}
