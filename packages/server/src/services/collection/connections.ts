import type { PaymentProvider, PaymentProviderName, StripeProviderPut } from "@billing/shared";
import { notFound } from "../../domain/errors.js";
import type { ProviderConnection, ProviderConnectionView } from "../../repositories/payment-providers.js";
import type { CallScope } from "../call-scope.js";
import { publishChange } from "../webhook-events.js";
import type { PaymentProviderModule } from "./provider.js";
import { PROVIDERS } from "./providers.js";

type Scope = Pick<CallScope, "repositories" | "accountId">;

const presented = (accountId: string, view: ProviderConnectionView): PaymentProvider => ({
  provider: view.provider,
  apiBase: view.apiBase,
  secretKeyLast4: view.secretKeyLast4,
  webhookUrl: `/providers/${view.provider}/webhooks/${accountId}`,
  createdAt: view.createdAt.toISOString(),
  updatedAt: view.updatedAt.toISOString(),
});

/**
 * Connects the account to Stripe (or replaces its keys): the keys are sealed, and the answer shows neither; announced
 * as `payment_provider.connected` (without the keys).
 */
export async function connectStripe({ repositories, accountId, log }: CallScope, input: StripeProviderPut, now: Date) {
  const view = await repositories.paymentProviders.put(
    {
      accountId,
      provider: "stripe",
      secretKey: input.secretKey,
      webhookSecret: input.webhookSecret,
      apiBase: input.apiBase ?? PROVIDERS.stripe.defaultApiBase,
    },
    now,
  );
  const connection = presented(accountId, view);
  await publishChange(repositories, accountId, log, { type: "payment_provider.connected", data: connection });
  return connection;
}

export async function providerConnection({ repositories, accountId }: Scope, provider: PaymentProviderName) {
  const view = await repositories.paymentProviders.view(accountId, provider);
  if (!view) throw notFound("Payment provider");
  return presented(accountId, view);
}

/** Disconnects the account from a provider (its keys deleted), announced as `payment_provider.disconnected`. */
export async function disconnectProvider(
  { repositories, accountId, log }: CallScope,
  provider: PaymentProviderName,
  now: Date,
) {
  const view = await repositories.paymentProviders.view(accountId, provider);
  if (!view || !(await repositories.paymentProviders.remove(accountId, provider))) throw notFound("Payment provider");
  const data = { ...presented(accountId, view), updatedAt: now.toISOString() };
  await publishChange(repositories, accountId, log, { type: "payment_provider.disconnected", data });
}

/** The account's connected provider (the first of PROVIDERS connected), its keys opened; undefined: none. */
export async function connectedProvider({
  repositories,
  accountId,
}: Scope): Promise<{ module: PaymentProviderModule; connection: ProviderConnection } | undefined> {
  for (const module of Object.values(PROVIDERS)) {
    const connection = await repositories.paymentProviders.open(accountId, module.name);
    if (connection) return { module, connection };
  }
  return undefined;
}
