import type { PaymentProvider, PaymentProviderName, StripeProviderPut } from "@billing/shared";
import { notFound } from "../../domain/errors.js";
import type { ProviderConnection, ProviderConnectionView } from "../../repositories/payment-providers.js";
import type { CallScope } from "../call-scope.js";
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

/** Connects the account to Stripe (or replaces its keys): the keys are sealed, and the answer shows neither. */
export async function connectStripe({ repositories, accountId }: Scope, input: StripeProviderPut, now: Date) {
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
  return presented(accountId, view);
}

export async function providerConnection({ repositories, accountId }: Scope, provider: PaymentProviderName) {
  const view = await repositories.paymentProviders.view(accountId, provider);
  if (!view) throw notFound("Payment provider");
  return presented(accountId, view);
}

export async function disconnectProvider({ repositories, accountId }: Scope, provider: PaymentProviderName) {
  if (!(await repositories.paymentProviders.remove(accountId, provider))) throw notFound("Payment provider");
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
