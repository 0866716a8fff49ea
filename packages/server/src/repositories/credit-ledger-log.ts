import type { Collection } from "mongodb";
import { billingNow } from "../billing-clock.js";
import { wonInsert } from "../db/duplicate-key.js";
import { dueStep, EMPTY_LEDGER, type LedgerState, paymentEndSeq } from "../domain/ledger.js";
import { type EntryDoc, newEntryDoc, paymentFieldsOf, stateAfter } from "../presenters/stored-credits.js";
import type { Hooks } from "./hooks.js";

/** The field only the ledger reads: lists leave it out. */
export const STATE_FIELDS = { stateJson: 0 } as const;

/** Where a ledger stands: its last entry (null before the first) and the state after it. */
export interface Position {
  last: EntryDoc | null;
  state: LedgerState;
}

/**
 * Positions a caller read (a billing pass: the balance it priced an invoice's credits with), by customer: the next
 * movement's first guess, taken once. A stale guess loses its entry's unique insert and the movement reads again.
 */
export type PositionGuesses = Map<string, Position>;

/** What a movement does at a settled position: write its entry, or answer without writing. */
type Decision = { entry: EntryDoc } | { answer: unknown };

/** When a grant of the ledger expires (an `Expiration` entry's `effectiveAt`), if it is open there. */
const expiryOf = (state: LedgerState, grantId: string) =>
  state.grants.find((grant) => grant.grantId === grantId)?.expiresAt;

/**
 * The persistence protocol of a customer's credit ledger (see createCreditRepository): where it stands, and the one
 * append loop every movement goes through, each race decided by the unique insert of the entry at seq + 1.
 */
export function createLedgerLog(entries: Collection<EntryDoc>, hooks: Hooks) {
  /** The last entry and the state after it (the empty ledger before the first entry). */
  async function positionOf(accountId: string, customerId: string): Promise<Position> {
    const last = await entries.findOne({ accountId, customerId }, { sort: { seq: -1 } });
    return { last, state: last ? stateAfter(last) : EMPTY_LEDGER };
  }

  /** Writes the entry, or returns false when another movement took its place first. */
  async function commit(entry: EntryDoc): Promise<boolean> {
    await hooks("credits.append", entry.customerId);
    return wonInsert(entries.insertOne(entry));
  }

  /**
   * The ledger's one append loop. Each round reads the last entry; when an entry is due there (domain `dueStep`: the
   * rest of a payment, then each expiration that has come by the server's clock) it writes it, whoever else is writing
   * it; otherwise it asks `decide` for this movement's entry at that settled position, or for an answer that writes
   * nothing. An insert that loses its place to another writer starts the round over from the new last entry. Returns
   * the decision with the position it was made at and the entries this call wrote, in ledger order (its own last).
   */
  async function append<D extends Decision>(
    accountId: string,
    customerId: string,
    decide: (position: Position) => D | Promise<D>,
    guesses?: PositionGuesses,
  ): Promise<D & { position: Position; written: EntryDoc[] }> {
    const written: EntryDoc[] = [];
    let guess = guesses?.get(customerId);
    guesses?.delete(customerId);
    for (;;) {
      const position = guess ?? (await positionOf(accountId, customerId));
      guess = undefined;
      const due = dueStep(position.state, billingNow(accountId));
      if (due) {
        // A payment's next part repeats its invoice and total (a payment in progress is the last entry); the insert
        // that loses is someone else's same entry. An expiration says when its grant expired.
        const payment = due.type === "Usage" && position.last ? paymentFieldsOf(position.last) : {};
        const expired = due.type === "Expiration" ? expiryOf(position.state, due.grantId) : undefined;
        const entry = newEntryDoc(accountId, customerId, due, { ...payment, ...(expired && { effectiveAt: expired }) });
        if (await commit(entry)) written.push(entry);
        continue;
      }
      const decision = await decide(position);
      if (!("entry" in decision)) return { ...decision, position, written };
      if (await commit(decision.entry)) return { ...decision, position, written: [...written, decision.entry] };
    }
  }

  /** The settled position and the due entries this call wrote to reach it. */
  async function settle(accountId: string, customerId: string) {
    const { position, written } = await append(accountId, customerId, () => ({ answer: undefined }));
    return { ...position, written };
  }

  /**
   * The last entry of the payment `part` belongs to, with the entries written to reach it: at domain
   * `paymentEndSeq`; when parts are still pending after `part`, settling writes them, and the entry at that place is
   * taken from what settling wrote or read last, else read (another writer went past it meanwhile).
   */
  async function paymentEnd(accountId: string, customerId: string, part: EntryDoc) {
    const endSeq = paymentEndSeq(stateAfter(part));
    if (endSeq === part.seq) return { end: part, written: [] };
    const { last, written } = await settle(accountId, customerId);
    const end =
      [last, ...written].find((entry) => entry?.seq === endSeq) ??
      (await entries.findOne({ accountId, customerId, seq: endSeq }, { projection: STATE_FIELDS }));
    if (!end) throw new Error(`the ledger has no entry at ${endSeq} after settling`);
    return { end, written };
  }

  return { positionOf, append, settle, paymentEnd };
}
