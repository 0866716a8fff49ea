import type { CustomerStreamState } from "@billing/shared";
import { billingNow, onAccountClock } from "../billing-clock.js";
import { notFound } from "../domain/errors.js";
import { balancesByCurrency } from "../domain/grants.js";
import { amountOf } from "../presenters/money.js";
import type { CallScope } from "./call-scope.js";
import { defaultCurrencyOf } from "./credit-ledger.js";
import { entitlementsOf } from "./entitlements.js";
import { completeInvoices } from "./invoices/changes.js";
import { presentReservation } from "./reservation-chain.js";

/** The invoices a customer's stream shows: the first page of its list (oldest first). */
export const STREAMED_INVOICES = 100;
/** The open reservations it shows (the soonest to expire), found among the next 500 to expire, settled or not. */
const OPEN_RESERVATIONS_READ = { limit: 100, scan: 500 };

/**
 * The customer's live state as the API answers it now (docs/decisions.md, "The customer stream"): its entitlements
 * (usage of the current cycle per meter), its credit balances (the ledger's due entries applied in memory: nothing is
 * written), its open reservations and its invoices' states, on the account's clock (a test clock's time). Everything
 * is read from the database, so any instance answers the same. 404 when the account has no such customer.
 */
export async function customerStreamStateOf(scope: CallScope, customerId: string): Promise<CustomerStreamState> {
  const { repositories, accountId } = scope;
  const { testClock } = await repositories.accounts.callFactsOf(accountId);
  return onAccountClock(accountId, testClock?.at, async () => {
    const customer = await repositories.customers.get(accountId, customerId);
    if (!customer) throw notFound("Customer");
    const usage = await entitlementsOf(scope, customer.id);
    const { grants } = await repositories.credits.balance(accountId, customer.id);
    const balances = balancesByCurrency(grants, await defaultCurrencyOf(scope)).map((each) => ({
      currency: each.currency,
      balance: amountOf(each.micros),
    }));
    const now = billingNow(accountId);
    const open = await repositories.reservations.openOf(accountId, customer.id, now, OPEN_RESERVATIONS_READ);
    const reservations = open.map((slot) => {
      // Absent fields stay absent in the event's JSON.
      const { id, meterKey, currency, amount, expiresAt } = presentReservation(slot, undefined, now);
      return { id, meterKey, currency, amount, expiresAt };
    });
    const page = await repositories.invoices.list(accountId, { customerId: customer.id, limit: STREAMED_INVOICES });
    const invoices = (await completeInvoices(scope, page.items)).map((invoice) => ({
      id: invoice.id,
      number: invoice.number,
      status: invoice.status,
      amount: invoice.amount,
      billingStatus: invoice.billingStatus,
      amountDue: invoice.amountDue,
    }));
    return { usage, balances, reservations, invoices };
  });
}
