import { setTimeout as delay } from "node:timers/promises";
import type { MeterAggregation, Reservation } from "@billing/shared";
import { conflict, limitReached } from "../domain/errors.js";
import {
  admissionOf,
  type HeldSlot,
  heldMicrosOf,
  reservationStatusOf,
  SETTLE_MARGIN_MS,
} from "../domain/reservations.js";
import { unitsOf, unitsOfQuantityMicros } from "../presenters/money.js";
import type { StoredReservation, StoredSettlement } from "../repositories/reservations.js";
import type { CallScope } from "./call-scope.js";
import { publishChange } from "./webhook-events.js";

/**
 * A reservation's admission on its chain, for units (services/reservations.ts) and money (money-reservations.ts):
 * every admission the unique insert of the chain's next slot (docs/decisions.md, "Reservations").
 */

/** The most slots one reservation tries before answering 409 (a chain this busy is not waited on for ever). */
const MAX_SLOT_TRIES = 1000;
/** The longest pause after a lost slot, and how often its bound doubles (losses in a row) before that. */
const MAX_BACKOFF_MS = 1000;
const MAX_DOUBLINGS = 6;

/** A reservation as the API gives it, at `now`. */
export function presentReservation(slot: StoredReservation, claim: StoredSettlement | undefined, now: Date) {
  const reservation: Reservation = {
    id: slot._id,
    customerId: slot.customerId,
    ...(slot.meterKey !== undefined && { meterKey: slot.meterKey }),
    ...(slot.currency !== undefined && { currency: slot.currency }),
    amount: unitsOfQuantityMicros(slot.amountMicros),
    ref: slot.ref,
    status: reservationStatusOf(slot.expiresAt, claim !== undefined, now),
    ...(claim && { settledAmount: unitsOfQuantityMicros(claim.settledMicros) }),
    ...(slot.periodStart && { periodStart: slot.periodStart.toISOString() }),
    ...(slot.periodEnd && { periodEnd: slot.periodEnd.toISOString() }),
    expiresAt: slot.expiresAt.toISOString(),
    createdAt: slot.createdAt.toISOString(),
    ...(claim && { settledAt: claim.settledAt.toISOString() }),
  };
  return reservation;
}

export const refTaken = (ref: string) =>
  conflict(`A reservation with ref ${ref} exists`, [{ path: "ref", message: "already used" }]);

export const limitReachedBy = (remainingMicros: bigint) => {
  const remaining = unitsOf(remainingMicros);
  return limitReached(`LIMIT_REACHED: ${remaining} remaining`, remaining, [
    { path: "amount", message: `LIMIT_REACHED: exceeds the ${remaining} remaining` },
  ]);
};

/** What a reservation is stored with besides its chain, amount, ref and times: its customer and meter or currency. */
export type ReservationFields = Pick<
  StoredReservation,
  "customerId" | "meterKey" | "currency" | "customerAlias" | "periodStart" | "periodEnd"
>;

/** A reservation to admit on a chain (createReservation's units, or a money reservation's balance). */
export interface ChainRequest {
  chain: string;
  aggregation: MeterAggregation;
  fields: ReservationFields;
  amountMicros: number;
  input: { ttlSeconds: number; ref: string };
  now: Date;
  /** The limit (null: unlimited) and what is already used of it, read after the chain's slots. */
  limit: () => Promise<{ limitMicros: bigint | null; usageMicros: bigint }>;
  /** Whether the slots' holds count against the limit (not for a MAX cap or no limit). */
  holds: boolean;
}

/**
 * Admits a reservation on its chain: slots first (those holding and any of its ref), then their settlements, then the
 * limit's usage (a settlement writes its usage, or its debit, before it is recorded, so what this reads never misses
 * both a settled amount's usage and its hold: docs/decisions.md, "Reservations"); then the chain's next slot (admit),
 * the one insert that decides both the admission and the ref within the chain.
 */
export async function reserveOnChain(call: CallScope, request: ChainRequest): Promise<Reservation> {
  const { chain, now, input, holds } = request;
  const { reservations } = call.repositories;
  // The head before the slots: a slot of the ref stored before the head is among those read; one after it is among
  // those a lost insert reads (admit).
  const head = await reservations.head(chain);
  const read = await reservations.holdingOrOfRef(chain, now, input.ref, { holds });
  if (read.some((slot) => slot.ref === input.ref)) throw refTaken(input.ref);
  let heldMicros = 0n;
  if (holds) {
    const holding = read.filter((slot) => slot.n <= head);
    const recorded = await reservations.recorded(holding.map((slot) => slot._id));
    heldMicros = heldMicrosOf(
      holding.map((slot) => heldSlot(slot, recorded.has(slot._id))),
      now,
    );
  }
  const { limitMicros, usageMicros } = await request.limit();
  return admit({ ...request, call, head, heldMicros, usageMicros, limitMicros });
}

interface Admission extends ChainRequest {
  call: CallScope;
  head: number;
  heldMicros: bigint;
  usageMicros: bigint;
  limitMicros: bigint | null;
}

/** The chain's next slot, tried until one is won or the limit refuses (see createReservation). */
async function admit(admission: Admission): Promise<Reservation> {
  const { call, chain, limitMicros, aggregation, fields, input, now, amountMicros } = admission;
  const { repositories, accountId, log } = call;
  const { reservations } = repositories;
  let { head, heldMicros } = admission;
  const expiresAt = new Date(now.getTime() + input.ttlSeconds * 1000);
  for (let tries = 0; tries < MAX_SLOT_TRIES; tries += 1) {
    const decided = admissionOf({
      aggregation,
      limitMicros,
      usageMicros: admission.usageMicros,
      heldMicros,
      amountMicros: BigInt(amountMicros),
    });
    if (!decided.admitted) throw limitReachedBy(decided.remainingMicros ?? 0n);
    const slot: StoredReservation = {
      _id: `${chain}_${head + 1}`,
      accountId,
      ...fields,
      chain,
      n: head + 1,
      amountMicros,
      ref: input.ref,
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
    // Many writers on one chain: a random pause of up to two inserts' time, doubled at each loss in a row, spreads
    // them, so that fewer lose the next slot; then the winners, all taken by now, are read in one read (whole: they
    // hold their units, settled or not, which only ever overcounts). One read per loss: reading before the pause too
    // doubled the reads of 200 writers at once and took twice as long (docs/decisions.md, "Reservations", Cost).
    await delay(Math.random() * Math.min(MAX_BACKOFF_MS, insertMs * 2 ** Math.min(tries + 1, MAX_DOUBLINGS)));
    const missed = await reservations.after(chain, head);
    // Nothing after: the insert lost to a reservation of the same ref stored before refs were claimed (the old unique
    // index, until claimStoredRefs drops it), not to a slot. A winner of the same ref: this one's ref is taken.
    if (missed.length === 0 || missed.some((winner) => winner.ref === input.ref)) throw refTaken(input.ref);
    for (const winner of missed) heldMicros += heldMicrosOf([heldSlot(winner, false)], now);
    head = missed.at(-1)?.n ?? head + 1;
  }
  throw conflict("The customer's reservations of this meter are too busy: try again", [
    { path: "meterKey", message: "too many concurrent reservations" },
  ]);
}

export const heldSlot = (slot: StoredReservation, settled: boolean): HeldSlot => ({
  n: slot.n,
  amountMicros: BigInt(slot.amountMicros),
  holdUntil: slot.holdUntil,
  settled,
});

/**
 * The settlement's claim of `settledMicros` (one insert per reservation), or the claim already made: 409 when the
 * reservation expired unsettled, was settled with another amount, or its ref is another chain's reservation's (the
 * ref's claim, made first: only one reservation's usage is recorded under a ref).
 */
export async function claimSettlement(
  call: CallScope,
  found: { slot: StoredReservation; claim: StoredSettlement | undefined },
  settledMicros: number,
  now: Date,
): Promise<StoredSettlement> {
  const { slot } = found;
  const { reservations } = call.repositories;
  let claim = found.claim;
  if (!claim) {
    if (slot.expiresAt.getTime() <= now.getTime()) {
      throw conflict(`The reservation expired at ${slot.expiresAt.toISOString()}`, [
        { path: "id", message: "expired" },
      ]);
    }
    if (!(await reservations.claimRef(slot))) {
      throw conflict(`Another reservation's usage has ref ${slot.ref}: this one cannot be settled`, [
        { path: "id", message: "its ref is another reservation's" },
      ]);
    }
    claim = await reservations.claim(slot, settledMicros, now);
  }
  if (claim.settledMicros !== settledMicros) {
    const settled = unitsOfQuantityMicros(claim.settledMicros);
    throw conflict(`The reservation is already settled with ${settled}`, [
      { path: "amount", message: `already settled with ${settled}` },
    ]);
  }
  return claim;
}

/** Records the settlement (its units or money held no more) and announces `reservation.settled`. */
export async function recordSettlement(call: CallScope, slot: StoredReservation, claim: StoredSettlement, now: Date) {
  const { repositories, accountId, log } = call;
  await repositories.reservations.record(claim);
  const reservation = presentReservation(slot, claim, now);
  await publishChange(repositories, accountId, log, { type: "reservation.settled", data: reservation });
  return reservation;
}
