import type { PaymentProviderName } from "@billing/shared";
import type { PaymentProviderModule } from "./provider.js";
import { stripeProvider } from "./stripe.js";

/** Every provider the service collects through: a new one is a new module and one entry here. */
export const PROVIDERS: Record<PaymentProviderName, PaymentProviderModule> = {
  stripe: stripeProvider,
};
