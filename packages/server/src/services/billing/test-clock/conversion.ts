import { conflict, notFound } from "../../../domain/errors.js";
import type { Repositories } from "../../../repositories/index.js";

/**
 * Whether a live account may become a test account (PATCH /admin/accounts/{accountId} with `testClock`): only before
 * its first invoice, so that no invoice was ever issued on real time (409); a test account stays one, its clock moved
 * by advances only (409), so that none of its tokens ever acts on a live account. 404 for no account.
 */
export async function assertMayBecomeTestAccount(repositories: Repositories, accountId: string): Promise<void> {
  const account = await repositories.accounts.get(accountId);
  if (!account) throw notFound("Account");
  if (account.testClock) {
    throw conflict("The account is a test account already: its clock moves forward by POST /test-clock/advance", [
      { path: "testClock", message: "already set: a test clock moves only by its advances" },
    ]);
  }
  if (await repositories.invoices.anyOf(accountId)) {
    throw conflict("The account has invoices, issued on real time: only an account with none becomes a test account", [
      { path: "testClock", message: "the account has invoices" },
    ]);
  }
}
