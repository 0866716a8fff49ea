import type { Reservation, ReservationCreate } from "@billing/shared";
import { billingNow } from "../billing-clock.js";
import { badRequest, notFound } from "../domain/errors.js";
import { payableMicros } from "../domain/grants.js";
import { assertWholeMinorUnits } from "../domain/money/currency.js";
import { asMicros } from "../domain/money/micros.js";
import { microsOf, unitsOfQuantityMicros } from "../presenters/money.js";
import { chainOf, type StoredReservation, type StoredSettlement } from "../repositories/reservations.js";
import type { CallScope } from "./call-scope.js";
import { payReservationFromCredits } from "./credit-ledger.js";
import { claimSettlement, recordSettlement, reserveOnChain } from "./reservation-chain.js";

/** The chains of money reservations have no cycle: one per customer and currency, from the epoch. */
const BALANCE_EPOCH = new Date(0);

/** The chain of a customer's money reservations in one currency (a name no meter key can take: `$credits:`). */
const moneyChainOf = (accountId: string, customerId: string, currency: string) =>
  chainOf(accountId, customerId, [`$credits:${currency}`], BALANCE_EPOCH);

/**
 * Holds `amount` (money in `currency`) against the customer's prepaid credit balance when what credits could pay in
 * that currency now − what open money reservations hold ≥ amount, else 409 LIMIT_REACHED with `remaining`
 * (docs/decisions.md, "Money reservations"). The same chain admission as units: slots first, then the balance, so
 * a settlement between the reads is counted twice (held and debited), never missed.
 */
export async function createMoneyReservation(
  call: CallScope,
  idOrExternalId: string,
  input: ReservationCreate & { currency: string },
): Promise<Reservation> {
  const { repositories, accountId } = call;
  const customer = await repositories.customers.get(accountId, idOrExternalId);
  if (!customer) throw notFound("Customer");
  const amountMicros = microsOf(input.amount);
  assertWholeMinorUnits(amountMicros, input.currency, "amount");
  const now = billingNow(accountId);
  return reserveOnChain(call, {
    chain: moneyChainOf(accountId, customer.id, input.currency),
    aggregation: "SUM",
    fields: { customerId: customer.id, currency: input.currency },
    amountMicros,
    input,
    now,
    limit: async () => {
      // The balance as the ledger stands (its due expirations applied in memory): what credits could pay now.
      const { grants } = await repositories.credits.balance(accountId, customer.id);
      const limitMicros = payableMicros(grants, { currency: input.currency, issuedAt: now });
      return { limitMicros: BigInt(limitMicros), usageMicros: 0n };
    },
    holds: true,
  });
}

/**
 * Settles a money reservation: `amount` (0 up to the amount held) is taken off the credit balance once (one keyed
 * debit: `Usage` entries with `reservationId`, however often or concurrently this runs), then the hold is freed.
 * The debit takes what the balance still holds of it (payments of invoices do not see holds): never below zero.
 */
export async function settleMoneyReservation(
  call: CallScope,
  found: { slot: StoredReservation & { currency: string }; claim: StoredSettlement | undefined },
  amount: number,
): Promise<Reservation> {
  const { slot } = found;
  const settledMicros = microsOf(amount);
  assertWholeMinorUnits(settledMicros, slot.currency, "amount");
  if (settledMicros > slot.amountMicros) {
    const message = `is more than the ${unitsOfQuantityMicros(slot.amountMicros)} reserved`;
    throw badRequest(`amount ${message}`, [{ path: "amount", message }]);
  }
  const now = billingNow(call.accountId);
  const claim = await claimSettlement(call, found, settledMicros, now);
  if (claim.settledMicros > 0)
    await payReservationFromCredits(call, slot.customerId, {
      reservationId: slot._id,
      currency: slot.currency,
      issuedAt: claim.settledAt,
      maxMicros: asMicros(claim.settledMicros),
    });
  return recordSettlement(call, slot, claim, now);
}
