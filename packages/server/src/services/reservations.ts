import { setTimeout as delay } from "node:timers/promises";
import {
  type EventInput,
  MAX_EVENTS_PER_BATCH,
  type Meter,
  type Reservation,
  type ReservationCreate,
} from "@billing/shared";
import { billingNow } from "../billing-clock.js";
import { utcMonthOf } from "../domain/alerts/periods.js";
import { badRequest, conflict, limitReached, notFound } from "../domain/errors.js";
import {
  admissionOf,
  type HeldSlot,
  heldMicrosOf,
  reservable,
  reservationStatusOf,
  SETTLE_MARGIN_MS,
  settlementRefs,
} from "../domain/reservations.js";
import { quantityMicrosOf, unitsOf, unitsOfQuantityMicros } from "../presenters/money.js";
import type { Repositories } from "../repositories/index.js";
import { chainOf, type StoredReservation, type StoredSettlement } from "../repositories/reservations.js";
import type { CallScope } from "./call-scope.js";
import { ingestEvents } from "./ingestion.js";
import { customerTerms, usageMicrosOf } from "./meter-terms.js";
import { publishChange } from "./webhook-events.js";

/** The most slots one reservation tries before answering 409 (a chain this busy is not waited on for ever). */
const MAX_SLOT_TRIES = 1000;
/** The longest pause after a lost slot. */
const MAX_BACKOFF_MS = 250;

/** A reservation as the API gives it, at `now`. */
export function presentReservation(slot: StoredReservation, claim: StoredSettlement | undefined, now: Date) {
  const reservation: Reservation = {
    id: slot._id,
    customerId: slot.customerId,
    meterKey: slot.meterKey,
    amount: unitsOfQuantityMicros(slot.amountMicros),
    ref: slot.ref,
    status: reservationStatusOf(slot.expiresAt, claim !== undefined, now),
    ...(claim && { settledAmount: unitsOfQuantityMicros(claim.settledMicros) }),
    periodStart: slot.periodStart.toISOString(),
    periodEnd: slot.periodEnd.toISOString(),
    expiresAt: slot.expiresAt.toISOString(),
    createdAt: slot.createdAt.toISOString(),
    ...(claim && { settledAt: claim.settledAt.toISOString() }),
  };
  return reservation;
}

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

/** The customerAlias the customer's usage events are sent under (409 when it has none). */
async function aliasOf(repositories: Repositories, accountId: string, idOrExternalId: string) {
  const customer = await repositories.customers.get(accountId, idOrExternalId);
  if (!customer) throw notFound("Customer");
  const [alias] = await repositories.customers.eventAliasesOf(accountId, customer);
  if (alias === undefined) {
    const message = "has no alias or externalId its usage events could be sent under";
    throw conflict(`The customer ${message}`, [{ path: "customerId", message }]);
  }
  return { customerId: customer.id, alias };
}

const refTaken = (ref: string) =>
  conflict(`A reservation with ref ${ref} exists`, [{ path: "ref", message: "already used" }]);

const limitReachedBy = (remainingMicros: bigint) => {
  const remaining = unitsOf(remainingMicros);
  return limitReached(`LIMIT_REACHED: ${remaining} remaining`, remaining, [
    { path: "amount", message: `LIMIT_REACHED: exceeds the ${remaining} remaining` },
  ]);
};

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
  const { customerId, alias } = await aliasOf(repositories, accountId, idOrExternalId);
  const meter = await reservableMeter(repositories, accountId, input.meterKey);
  const amountMicros = quantityMicrosOf(input.amount);
  checkAmount(meter, amountMicros);
  const now = billingNow(accountId);
  const terms = await customerTerms(repositories, accountId, customerId).of(meter.key, now);
  const period = terms?.cycle ?? utcMonthOf(now);
  const meters = terms?.meters ?? [meter.key];
  const limitMicros = terms?.commitment ? BigInt(terms.commitment.unitsMicros) : null;
  const chain = chainOf(accountId, customerId, meters, period.start);
  const { reservations } = repositories;

  // Slots first, then their settlements, then usage: a settlement writes its usage before it is recorded, so what
  // this reads never misses both a settled amount's usage and its hold (docs/decisions.md, "Reservations").
  const head = await reservations.head(chain);
  let heldMicros = 0n;
  const counts = limitMicros !== null && meter.aggregation !== "MAX";
  let usageMicros = 0n;
  if (counts) {
    const holding = (await reservations.holding(chain, now)).filter((slot) => slot.n <= head);
    const recorded = await reservations.recorded(holding.map((slot) => slot._id));
    heldMicros = heldMicrosOf(
      holding.map((slot) => heldSlot(slot, recorded.has(slot._id))),
      now,
    );
    usageMicros = await usageMicrosOf(repositories, accountId, customerId, meters, period);
  }
  // The ref's claim first (one per account, docs/decisions.md "Shard keys that split an account"): a refusal after it
  // gives it back, so that nothing stays written.
  const token = await reservations.claimRef(accountId, input.ref, chain);
  if (token === undefined) throw refTaken(input.ref);
  try {
    return await admit({
      call,
      chain,
      customerId,
      amountMicros,
      head,
      heldMicros,
      usageMicros,
      limitMicros,
      meter,
      alias,
      period,
      input,
      now,
    });
  } catch (error) {
    await reservations.releaseRef(accountId, input.ref, token);
    throw error;
  }
}

interface Admission {
  call: CallScope;
  chain: string;
  customerId: string;
  head: number;
  heldMicros: bigint;
  usageMicros: bigint;
  limitMicros: bigint | null;
  meter: Awaited<ReturnType<typeof reservableMeter>>;
  amountMicros: number;
  alias: string;
  period: { start: Date; end: Date };
  input: ReservationCreate;
  now: Date;
}

/** The chain's next slot, tried until one is won or the limit refuses (see createReservation). */
async function admit(admission: Admission): Promise<Reservation> {
  const { call, chain, limitMicros, meter, alias, period, input, now, amountMicros } = admission;
  const { repositories, accountId, log } = call;
  const { reservations } = repositories;
  let { head, heldMicros } = admission;
  const expiresAt = new Date(now.getTime() + input.ttlSeconds * 1000);
  for (let tries = 0; tries < MAX_SLOT_TRIES; tries += 1) {
    const decided = admissionOf({
      aggregation: meter.aggregation,
      limitMicros,
      usageMicros: admission.usageMicros,
      heldMicros,
      amountMicros: BigInt(amountMicros),
    });
    if (!decided.admitted) throw limitReachedBy(decided.remainingMicros ?? 0n);
    const slot: StoredReservation = {
      _id: `${chain}_${head + 1}`,
      accountId,
      customerId: admission.customerId,
      meterKey: meter.key,
      customerAlias: alias,
      chain,
      n: head + 1,
      amountMicros,
      ref: input.ref,
      periodStart: period.start,
      periodEnd: period.end,
      expiresAt,
      holdUntil: new Date(expiresAt.getTime() + SETTLE_MARGIN_MS),
      createdAt: now,
    };
    const insertStarted = Date.now();
    if (await reservations.insert(slot)) {
      const reservation = presentReservation(slot, undefined, now);
      await publishChange(repositories, accountId, log, { type: "reservation.created", data: reservation });
      return reservation;
    }
    const insertMs = Date.now() - insertStarted;
    // The winners (read now, whole) hold their units, settled or not, which only ever overcounts.
    let missed = await reservations.after(chain, head);
    // Nothing after: the insert lost to a reservation of the same ref stored before refs were claimed (the old unique
    // index, until claimStoredRefs drops it), not to a slot.
    if (missed.length === 0) throw refTaken(input.ref);
    // Many writers on one chain (as many as the slots missed, roughly): a random pause of up to that many inserts'
    // time spreads them, so that fewer lose the next slot; then the slots taken meanwhile are read too.
    await delay(Math.random() * Math.min(MAX_BACKOFF_MS, missed.length * insertMs));
    const last = missed.at(-1)?.n ?? head + 1;
    missed = [...missed, ...(await reservations.after(chain, last))];
    for (const winner of missed) heldMicros += heldMicrosOf([heldSlot(winner, false)], now);
    head = missed.at(-1)?.n ?? head + 1;
  }
  throw conflict("The customer's reservations of this meter are too busy: try again", [
    { path: "meterKey", message: "too many concurrent reservations" },
  ]);
}

const heldSlot = (slot: StoredReservation, settled: boolean): HeldSlot => ({
  n: slot.n,
  amountMicros: BigInt(slot.amountMicros),
  holdUntil: slot.holdUntil,
  settled,
});

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
    customerAlias: slot.customerAlias,
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
  const { repositories, accountId, log } = call;
  const found = await repositories.reservations.get(accountId, id);
  if (!found) throw notFound("Reservation");
  const { slot } = found;
  const meter = await repositories.meters.getByKey(accountId, slot.meterKey);
  if (!meter) throw notFound("Meter");
  const settledMicros = quantityMicrosOf(amount);
  checkAmount(meter, settledMicros);
  if (settledMicros > slot.amountMicros) {
    const message = `is more than the ${unitsOfQuantityMicros(slot.amountMicros)} reserved`;
    throw badRequest(`amount ${message}`, [{ path: "amount", message }]);
  }
  const now = billingNow(accountId);
  let claim = found.claim;
  if (!claim) {
    if (slot.expiresAt.getTime() <= now.getTime()) {
      throw conflict(`The reservation expired at ${slot.expiresAt.toISOString()}`, [
        { path: "id", message: "expired" },
      ]);
    }
    claim = await repositories.reservations.claim(slot, settledMicros, now);
  }
  if (claim.settledMicros !== settledMicros) {
    const settled = unitsOfQuantityMicros(claim.settledMicros);
    throw conflict(`The reservation is already settled with ${settled}`, [
      { path: "amount", message: `already settled with ${settled}` },
    ]);
  }
  const events = settlementEvents(meter, slot, claim);
  if (events.length > 0) await ingestEvents(call, events);
  await repositories.reservations.record(claim);
  const reservation = presentReservation(slot, claim, now);
  await publishChange(repositories, accountId, log, { type: "reservation.settled", data: reservation });
  return reservation;
}
