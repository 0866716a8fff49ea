import {
  type EventInput,
  MAX_EVENTS_PER_BATCH,
  type Meter,
  type Reservation,
  type ReservationCreate,
} from "@billing/shared";
import { billingNow } from "../billing-clock.js";
import { utcMonthOf } from "../domain/alerts/periods.js";
import { badRequest, conflict, notFound } from "../domain/errors.js";
import { reservable, settlementRefs } from "../domain/reservations.js";
import { quantityMicrosOf, unitsOfQuantityMicros } from "../presenters/money.js";
import type { Repositories } from "../repositories/index.js";
import { chainOf, type StoredReservation, type StoredSettlement } from "../repositories/reservations.js";
import type { CallScope } from "./call-scope.js";
import { ingestEvents } from "./ingestion.js";
import { customerTerms, usageMicrosOf } from "./meter-terms.js";
import { createMoneyReservation, settleMoneyReservation } from "./money-reservations.js";
import { claimSettlement, presentReservation, recordSettlement, reserveOnChain } from "./reservation-chain.js";

/** A COUNT meter's amounts are whole events, at most one batch of them (400 naming `amount`). */
function checkAmount(meter: Meter, micros: number) {
  if (meter.aggregation !== "COUNT") return;
  const message =
    micros % 1_000_000 !== 0
      ? "a COUNT meter counts whole events"
      : micros > MAX_EVENTS_PER_BATCH * 1_000_000
        ? `a COUNT meter's reservation is at most ${MAX_EVENTS_PER_BATCH} events`
        : undefined;
  if (message) throw badRequest(`amount: ${message}`, [{ path: "amount", message }]);
}

/** The meter of a reservation: 404 when unknown, 400 naming `meterKey` when its aggregation cannot be reserved. */
async function reservableMeter(repositories: Repositories, accountId: string, meterKey: string) {
  const meter = await repositories.meters.getByKey(accountId, meterKey);
  if (!meter) throw notFound("Meter");
  if (!reservable(meter.aggregation)) {
    const message = `a ${meter.aggregation} meter cannot be reserved: only SUM, COUNT and MAX (a cap) can`;
    throw badRequest(`meterKey: ${message}`, [{ path: "meterKey", message }]);
  }
  return meter;
}

/**
 * The aliases the customer's usage events are sent under, the first the settlement's (409 when it has none): read
 * once, and handed to the usage read.
 */
async function aliasesOf(repositories: Repositories, accountId: string, idOrExternalId: string) {
  const customer = await repositories.customers.get(accountId, idOrExternalId);
  if (!customer) throw notFound("Customer");
  const aliases = await repositories.customers.eventAliasesOf(accountId, customer);
  const [alias] = aliases;
  if (alias === undefined) {
    const message = "has no alias or externalId its usage events could be sent under";
    throw conflict(`The customer ${message}`, [{ path: "customerId", message }]);
  }
  return { customerId: customer.id, alias, aliases };
}

/**
 * Holds `amount` units of a meter for the customer when the cycle's usage + what open reservations hold + amount stay
 * within its commitment's units (no commitment: unlimited; MAX: amount ≤ units), else 409 LIMIT_REACHED. The
 * admission is the insert of the chain's next slot: the writer read every earlier slot (docs/decisions.md,
 * "Reservations"); a lost slot adds what the winners hold and tries the next. Publishes `reservation.created`.
 */
export async function createReservation(
  call: CallScope,
  idOrExternalId: string,
  input: ReservationCreate,
): Promise<Reservation> {
  const { repositories, accountId } = call;
  if (input.currency !== undefined)
    return createMoneyReservation(call, idOrExternalId, { ...input, currency: input.currency });
  const { customerId, alias, aliases } = await aliasesOf(repositories, accountId, idOrExternalId);
  const meter = await reservableMeter(repositories, accountId, input.meterKey ?? "");
  const amountMicros = quantityMicrosOf(input.amount);
  checkAmount(meter, amountMicros);
  const now = billingNow(accountId);
  const terms = await customerTerms(repositories, accountId, customerId).of(meter.key, now);
  const period = terms?.cycle ?? utcMonthOf(now);
  const meters = terms?.meters ?? [meter.key];
  const limitMicros = terms?.commitment ? BigInt(terms.commitment.unitsMicros) : null;
  const chain = chainOf(accountId, customerId, meters, period.start);
  const counts = limitMicros !== null && meter.aggregation !== "MAX";
  return reserveOnChain(call, {
    chain,
    aggregation: meter.aggregation,
    fields: { customerId, meterKey: meter.key, customerAlias: alias, periodStart: period.start, periodEnd: period.end },
    amountMicros,
    input,
    now,
    // The limit's usage, read after the slots (see reserveOnChain); none to read when nothing adds up against it. The
    // customer and the meter are not read again.
    limit: async () => ({
      limitMicros,
      usageMicros: counts
        ? await usageMicrosOf(repositories, accountId, customerId, meters, period, { aliases, meters: [meter] })
        : 0n,
    }),
    holds: counts,
  });
}

/** The account's reservation (404 otherwise), as it is now. */
export async function getReservation(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  id: string,
): Promise<Reservation> {
  const found = await repositories.reservations.get(accountId, id);
  if (!found) throw notFound("Reservation");
  return presentReservation(found.slot, found.claim, billingNow(accountId));
}

/** The usage events of a settlement, as a caller would send them: the meter counts each as the claim says. */
function settlementEvents(meter: Meter, slot: StoredReservation, claim: StoredSettlement): EventInput[] {
  const data: Record<string, string> = {};
  for (const filter of meter.filters ?? []) data[filter.property] = filter.in[0] ?? "";
  if (meter.valueProperty) data[meter.valueProperty] = String(unitsOfQuantityMicros(claim.settledMicros));
  return settlementRefs(meter.aggregation, slot.ref, BigInt(claim.settledMicros)).map((ref) => ({
    name: meter.eventName,
    timestamp: claim.settledAt.toISOString(),
    customerAlias: slot.customerAlias ?? "",
    ref,
    data,
  }));
}

/**
 * Records `amount` (0 up to the amount reserved) as the customer's usage, in usage events under the reservation's
 * ref, and frees the rest. Once per reservation: the claim of its settlement is one insert; the same amount again
 * answers the same (and completes a settlement a crash stopped); another amount is 409; an expired one is 409.
 * Publishes `reservation.settled`.
 */
export async function settleReservation(call: CallScope, id: string, amount: number): Promise<Reservation> {
  const { repositories, accountId } = call;
  const found = await repositories.reservations.get(accountId, id);
  if (!found) throw notFound("Reservation");
  const { slot } = found;
  if (slot.currency !== undefined)
    return settleMoneyReservation(call, { slot: { ...slot, currency: slot.currency }, claim: found.claim }, amount);
  const meter = await repositories.meters.getByKey(accountId, slot.meterKey ?? "");
  if (!meter) throw notFound("Meter");
  const settledMicros = quantityMicrosOf(amount);
  checkAmount(meter, settledMicros);
  if (settledMicros > slot.amountMicros) {
    const message = `is more than the ${unitsOfQuantityMicros(slot.amountMicros)} reserved`;
    throw badRequest(`amount ${message}`, [{ path: "amount", message }]);
  }
  const now = billingNow(accountId);
  const claim = await claimSettlement(call, found, settledMicros, now);
  const events = settlementEvents(meter, slot, claim);
  if (events.length > 0) await ingestEvents(call, events);
  return recordSettlement(call, slot, claim, now);
}
