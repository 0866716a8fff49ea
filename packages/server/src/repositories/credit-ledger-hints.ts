import type { Db } from "mongodb";
import { duplicateKeyIndexes } from "../db/duplicate-key.js";

/** Where a customer's credit ledger stood when a billing pass last read it. */
interface HintDoc {
  /** `<accountId>/<customerId>`. */
  _id: string;
  accountId: string;
  customerId: string;
  /** The seq of the ledger's last entry then: a lower bound of its last entry's seq now. */
  seq: number;
}

/**
 * Where each customer's credit ledger stood when a billing pass last read it (`credit_ledger_hints`, one document per
 * customer with a ledger a pass priced from): the next pass reads the last entries of all a batch's customers in one
 * command, the entries from each hint on (the credits repository's `positionsFrom`), where it read each customer's
 * alone (issue 47: a usage month-end's calls spent a read an invoice on it). Only ever a lower bound, never a decision:
 * ledger entries are never removed and their seqs only grow, so a hint raised by `$max` from a seq read is at most the
 * last; a raise lost (FerretDB's concurrent updates) or never made leaves it lower, and the read takes more entries.
 */
export function createCreditLedgerHintRepository(db: Db) {
  const hints = db.collection<HintDoc>("credit_ledger_hints");
  const idOf = (accountId: string, customerId: string) => `${accountId}/${customerId}`;

  return {
    async ensureIndexes() {
      // Read and written by `_id` alone.
    },

    /** The hints of these customers (ids as the ledger holds them), by customer: one read of at most 200. */
    async of(accountId: string, customerIds: string[]): Promise<Map<string, number>> {
      if (customerIds.length === 0) return new Map();
      const found = await hints.find({ _id: { $in: customerIds.map((id) => idOf(accountId, id)) } }).toArray();
      return new Map(found.map(({ customerId, seq }) => [customerId, seq]));
    },

    /**
     * Raises the customers' hints to these seqs (each read from its ledger), one command for all of them. Two passes
     * creating one customer's hint at once: the loser's upsert fails on `_id`, the winner's seq stands (a bound too).
     */
    async raise(accountId: string, seqs: Map<string, number>): Promise<void> {
      if (seqs.size === 0) return;
      const raises = [...seqs].map(([customerId, seq]) => ({
        updateOne: {
          filter: { _id: idOf(accountId, customerId) },
          update: { $max: { seq }, $setOnInsert: { accountId, customerId } },
          upsert: true,
        },
      }));
      try {
        await hints.bulkWrite(raises, { ordered: false });
      } catch (error) {
        duplicateKeyIndexes(error);
      }
    },
  };
}

export type CreditLedgerHintRepository = ReturnType<typeof createCreditLedgerHintRepository>;
