import { lastOfEach } from "../../db/last-of-each.js";
import type { Repositories } from "../../repositories/index.js";
import { subscribersAmong } from "../../repositories/webhook-endpoints.js";

/**
 * The repositories as one billing pass reads them: what every invoice of the account asks again — the account, its
 * enabled webhook endpoints, its payment provider's connection — and each customer, read once per pass (a pass lasts
 * at most its 3 s budget; docs/decisions.md, "One read per pass"); the invoice sequence and the number series read
 * once and then guessed, each guess decided by its unique insert. Everything else goes to the repositories as they
 * are: a contract is read fresh by the guard before its invoice is finalized.
 */
export function readOncePerPass(repositories: Repositories): Repositories {
  const reads = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    let pending = reads.get(key) as Promise<T> | undefined;
    if (!pending) {
      pending = read();
      reads.set(key, pending);
      // A failed read is not kept: the next asker reads again.
      pending.catch(() => reads.delete(key));
    }
    return pending;
  };
  const { accounts, customers, webhookEndpoints, paymentProviders, invoices, documentNumbers } = repositories;
  const places = lastOfEach();
  const numbers = lastOfEach();
  return {
    ...repositories,
    accounts: { ...accounts, get: (accountId) => once(`account ${accountId}`, () => accounts.get(accountId)) },
    customers: {
      ...customers,
      get: (accountId, customerId) => once(`customer ${customerId}`, () => customers.get(accountId, customerId)),
    },
    webhookEndpoints: {
      ...webhookEndpoints,
      subscribers: async (accountId, type, occurredAt) =>
        subscribersAmong(
          await once(`endpoints ${accountId}`, () => webhookEndpoints.enabled(accountId)),
          type,
          occurredAt,
        ),
    },
    paymentProviders: {
      ...paymentProviders,
      view: (accountId, provider) =>
        once(`provider ${accountId} ${provider}`, () => paymentProviders.view(accountId, provider)),
    },
    invoices: {
      ...invoices,
      insert: (accountId, draft, placement) => invoices.insert(accountId, draft, placement, places),
    },
    documentNumbers: { ...documentNumbers, claim: (claim) => documentNumbers.claim({ ...claim, guesses: numbers }) },
  };
}
