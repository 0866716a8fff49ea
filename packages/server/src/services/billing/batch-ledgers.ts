import { canonicalId } from "../../db/ids.js";
import { ZERO_MICROS } from "../../domain/money/micros.js";
import type { Position, PositionGuesses } from "../../repositories/credit-ledger-log.js";
import type { Repositories } from "../../repositories/index.js";

/** What a batch knows of its customers' ledgers before it reads them (pass-reads.ts prefetch). */
interface LedgersToRead {
  /** Where a pass last read each ledger (credit-ledger-hints.ts). */
  hints: Map<string, number>;
  /** The customers whose ledger has an entry. */
  withEntries: Set<string>;
  /** The customers with a recurring grant due. */
  recurring: Set<string>;
}

/**
 * The credit ledgers of a billing batch's customers, read together (docs/decisions.md, "A batch reads its customers'
 * credit ledgers together"): the last entries of all those a pass read before, in one read from where it left them
 * (credit-ledger-hints.ts), or from the first entry of those no pass read yet, each customer's first balance and its
 * payment's first guess; then, once the batch's invoices are stored, the hints raised to where this pass read them (one
 * command).
 */
export function batchLedgers({ credits, creditLedgerHints }: Repositories) {
  /** Each credit ledger's position as the pass last read it: its next payment's first guess. */
  const positions: PositionGuesses = new Map();
  /** The batch's positions read together: each customer's first balance, taken once. */
  const batchPositions = new Map<string, Position>();
  /** Customers whose ledger had no entry and no recurring grant due when their batch looked. */
  const emptyLedgers = new Set<string>();
  /** The seq of each ledger's last entry as the pass read it, and its hint when it had one. */
  const ledgerSeqs = new Map<string, { seq: number; hint: number | undefined }>();
  /** A movement of the pass's own makes the customer's position read with the batch stale: its next balance reads. */
  const moved = <T>(customerId: string, movement: Promise<T>) => {
    batchPositions.delete(canonicalId(customerId));
    return movement;
  };

  return {
    /** Notes a customer of the batch whose ledger has no entry and no recurring grant due (pass-reads.ts prefetch). */
    noteEmpty: (customerId: string) => emptyLedgers.add(customerId),

    /** The hints of the batch's customers (one read, beside the batch's other reads: pass-reads.ts prefetch). */
    hintsOf: (accountId: string, customerIds: string[]) =>
      creditLedgerHints.of(accountId, customerIds.map(canonicalId)),

    /**
     * Reads the last entries of the batch's customers whose ledger has any (`withEntries`), each from its hint, or
     * from its first entry when no pass read it yet (one command, none when no customer has an entry). Not for a
     * customer with a recurring grant due (`recurring`): its first payment issues the period first, a new entry.
     */
    async prefetch(accountId: string, { hints, withEntries, recurring }: LedgersToRead) {
      for (const [customerId, hint] of hints) ledgerSeqs.set(customerId, { seq: hint, hint });
      const from = new Map(hints);
      for (const customerId of withEntries) if (!from.has(customerId)) from.set(customerId, 1);
      batchPositions.clear();
      for (const [customerId, position] of await credits.positionsFrom(accountId, from))
        if (!recurring.has(customerId)) batchPositions.set(customerId, position);
    },

    /** Raises the hints of the ledgers the batch read past them, once its invoices are stored (one command). */
    async close(accountId: string) {
      const raised = [...ledgerSeqs].filter(([, { seq, hint }]) => hint === undefined || seq > hint);
      ledgerSeqs.clear();
      await creditLedgerHints.raise(accountId, new Map(raised.map(([customerId, { seq }]) => [customerId, seq])));
    },

    credits: {
      ...credits,
      balance: async (accountId: string, rawCustomerId: string) => {
        if (emptyLedgers.has(rawCustomerId)) return { balanceMicros: ZERO_MICROS, grants: [], empty: true };
        const customerId = canonicalId(rawCustomerId);
        const known = batchPositions.get(customerId);
        batchPositions.delete(customerId);
        const balance = await credits.balance(accountId, customerId, positions, known);
        const seq = positions.get(customerId)?.last?.seq;
        if (seq !== undefined) ledgerSeqs.set(customerId, { seq, hint: ledgerSeqs.get(customerId)?.hint });
        return balance;
      },
      // The pass's own movements (a correction's grant, a seat refund's rest, a recurring period, a reversal).
      grant: (accountId, customerId, ...rest) => moved(customerId, credits.grant(accountId, customerId, ...rest)),
      grantOnce: (accountId, customerId, ...rest) =>
        moved(customerId, credits.grantOnce(accountId, customerId, ...rest)),
      grantCreditNote: (accountId, customerId, ...rest) =>
        moved(customerId, credits.grantCreditNote(accountId, customerId, ...rest)),
      payReservation: (accountId, customerId, ...rest) =>
        moved(customerId, credits.payReservation(accountId, customerId, ...rest)),
      settle: (accountId, customerId) => moved(customerId, credits.settle(accountId, customerId)),
      reverseInvoice: (accountId, customerId, invoiceId) =>
        moved(customerId, credits.reverseInvoice(accountId, customerId, invoiceId)),
      void: (accountId, entryId) => {
        batchPositions.clear();
        return credits.void(accountId, entryId);
      },
    } satisfies Partial<Repositories["credits"]>,

    /** The payment's first guess of a ledger's position: the pass's last read of it. */
    positions,
  };
}
