import { type CreditEntryType, MAX_AMOUNT, MICROS_PER_UNIT } from "@billing/shared";
import { type Burn, dueExpirations, type OpenGrant } from "./grants.js";
import { addMicros, asMicros, type Micros, subMicros, ZERO_MICROS } from "./money/micros.js";

/**
 * A customer's ledger after an entry: its place (`seq`, the number of entries so far), the balance, the grants with
 * money left (in grant order; their remainders add up to the balance), and the parts of a payment still to be
 * written after this entry (see `dueStep`). Amounts in micro-units.
 */
export interface LedgerState {
  seq: number;
  balanceMicros: Micros;
  grants: OpenGrant[];
  pending: Burn[];
}

export const EMPTY_LEDGER: LedgerState = { seq: 0, balanceMicros: ZERO_MICROS, grants: [], pending: [] };

/** An entry as the ledger computes it: what it moves, and the state after it. */
export interface LedgerStep {
  type: CreditEntryType;
  grantId: string;
  /** > 0 for a grant or a reversal, < 0 for the others. */
  amountMicros: Micros;
  /** The currency of the grant it moves. */
  currency: string;
  after: LedgerState;
}

/** The ceiling of a balance: 1e9 USD, so a balance is itself a valid amount and its micro-units stay exact. */
export const MAX_BALANCE_MICROS = MAX_AMOUNT * MICROS_PER_UNIT;

/**
 * Grants with money left a customer may hold at once: every entry carries them (the state after it), so one read
 * of the last entry is all a payment or a balance needs; this bounds that read and the size of each entry.
 */
export const MAX_OPEN_GRANTS = 100;

export class BalanceCeilingError extends RangeError {}
export class TooManyGrantsError extends RangeError {}

/** Terms of a new grant: all of an `OpenGrant` but what the ledger decides (its place and remainder). */
export type NewGrant = Omit<OpenGrant, "seq" | "remainingMicros">;

/** The `Grant` entry adding `grant` at `state`. The balance never passes its ceiling, nor the open grants theirs. */
export function grantStep(state: LedgerState, grant: NewGrant): LedgerStep {
  assertMicros(grant.amountMicros);
  if (state.pending.length > 0) throw new RangeError("a payment is being written: its parts come first");
  if (state.grants.length >= MAX_OPEN_GRANTS) {
    throw new TooManyGrantsError(`already ${MAX_OPEN_GRANTS} grants with money left`);
  }
  const balanceMicros = addMicros(state.balanceMicros, grant.amountMicros);
  if (balanceMicros > MAX_BALANCE_MICROS) throw new BalanceCeilingError("the balance would exceed its ceiling");
  const seq = state.seq + 1;
  const grants = [...state.grants, { ...grant, seq, remainingMicros: grant.amountMicros }];
  const after = { seq, balanceMicros, grants, pending: [] };
  return { type: "Grant", grantId: grant.grantId, amountMicros: grant.amountMicros, currency: grant.currency, after };
}

/**
 * The entry taking `burn.micros` from one grant (`Usage`, `Expiration`, `Void`), `pending` being the parts of its
 * payment that follow it. It never takes more than the grant holds: asking so is a bug, not a state.
 */
export function debitStep(
  state: LedgerState,
  type: Exclude<CreditEntryType, "Grant" | "Reversal">,
  burn: Burn,
  pending: Burn[] = [],
): LedgerStep {
  assertMicros(burn.micros);
  const grant = state.grants.find((candidate) => candidate.grantId === burn.grantId);
  if (!grant || burn.micros > grant.remainingMicros) {
    throw new RangeError(`grant ${burn.grantId} does not hold ${burn.micros} micro-units`);
  }
  const remainingMicros = subMicros(grant.remainingMicros, burn.micros);
  const grants =
    remainingMicros === 0
      ? state.grants.filter((candidate) => candidate !== grant)
      : state.grants.map((candidate) => (candidate === grant ? { ...grant, remainingMicros } : candidate));
  const after = { seq: state.seq + 1, balanceMicros: subMicros(state.balanceMicros, burn.micros), grants, pending };
  return { type, grantId: burn.grantId, amountMicros: asMicros(-burn.micros), currency: grant.currency, after };
}

/**
 * The `Reversal` entry giving `micros` back to a grant, which a voided invoice's `Usage` took from it. A grant that
 * had nothing left is open again with its own terms and place (so it burns where it burned before). Neither ceiling
 * refuses it: the money was in the ledger before. A grant expired by then is due to expire again at once (`dueStep`).
 */
export function reversalStep(
  state: LedgerState,
  grant: Omit<OpenGrant, "remainingMicros">,
  micros: Micros,
): LedgerStep {
  assertMicros(micros);
  if (state.pending.length > 0) throw new RangeError("a payment is being written: its parts come first");
  const open = state.grants.find((candidate) => candidate.grantId === grant.grantId);
  const grants = open
    ? state.grants.map((candidate) =>
        candidate === open ? { ...open, remainingMicros: addMicros(open.remainingMicros, micros) } : candidate,
      )
    : [...state.grants, { ...grant, remainingMicros: micros }].sort((a, b) => a.seq - b.seq);
  const after = { seq: state.seq + 1, balanceMicros: addMicros(state.balanceMicros, micros), grants, pending: [] };
  return { type: "Reversal", grantId: grant.grantId, amountMicros: micros, currency: grant.currency, after };
}

/** The first entry of a payment (its other parts pending after it), or undefined when it burns nothing. */
export function paymentStep(state: LedgerState, burns: Burn[]): LedgerStep | undefined {
  const [first, ...rest] = burns;
  return first && debitStep(state, "Usage", first, rest);
}

/** The `Void` entry removing all that is left of the grant, or undefined when nothing is. */
export function voidStep(state: LedgerState, grantId: string): LedgerStep | undefined {
  const grant = state.grants.find((candidate) => candidate.grantId === grantId);
  return grant && debitStep(state, "Void", { grantId, micros: grant.remainingMicros });
}

/**
 * The entry that must be written next at `now`, before any other movement, or undefined when the ledger is settled:
 * the next part of a payment being written (so a payment's entries are consecutive, and no other movement comes
 * between the grants it planned to burn and its entries), else the earliest due expiration, removing all that is
 * left of its grant. Whoever writes it, it is the same entry, so a writer that stopped half-way is completed by the
 * next.
 */
export function dueStep(state: LedgerState, now: Date): LedgerStep | undefined {
  const [part, ...rest] = state.pending;
  if (part) return debitStep(state, "Usage", part, rest);
  const [expired] = dueExpirations(state.grants, now);
  return expired && debitStep(state, "Expiration", { grantId: expired.grantId, micros: expired.remainingMicros });
}

/**
 * The place of a payment's last entry, from the state after any of its parts: the parts of a payment are consecutive
 * whoever writes them (see `dueStep`), so it lies as many places on as there are parts pending.
 */
export const paymentEndSeq = (afterPart: LedgerState): number => afterPart.seq + afterPart.pending.length;

/** The state once every due step is written: what a reader sees without writing (a preview). */
export function settled(state: LedgerState, now: Date): LedgerState {
  let current = state;
  for (let step = dueStep(current, now); step; step = dueStep(current, now)) current = step.after;
  return current;
}

function assertMicros(micros: number) {
  if (!Number.isSafeInteger(micros) || micros <= 0) {
    throw new RangeError(`a movement is a positive whole number of micro-units, not ${micros}`);
  }
}

/**
 * What an invoice's `Usage` entries took from each grant (`grantOf` names it) and its `Reversal` entries have not
 * given back yet, each with the grant's last `Usage` entry, in the order the grants were burned: what the invoice's
 * void still gives back. Entries in ledger order; amounts in micro-units (a `Usage` entry's negative).
 */
export function unreversedByGrant<Entry extends { amountMicros: Micros }>(
  usage: readonly Entry[],
  reversals: readonly Entry[],
  grantOf: (entry: Entry) => string,
): { entry: Entry; micros: Micros }[] {
  const owed = new Map<string, { entry: Entry; micros: Micros }>();
  for (const entry of usage) {
    const key = grantOf(entry);
    owed.set(key, { entry, micros: subMicros(owed.get(key)?.micros ?? ZERO_MICROS, entry.amountMicros) });
  }
  for (const entry of reversals) {
    const left = owed.get(grantOf(entry));
    if (left) left.micros = subMicros(left.micros, entry.amountMicros);
  }
  return [...owed.values()].filter(({ micros }) => micros > 0);
}
