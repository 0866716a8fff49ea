import type { Collection, Db, ObjectId } from "mongodb";
import { wonInserts } from "../db/duplicate-key.js";
import { type LastOfEach, lastOfEach } from "../db/last-of-each.js";
import type { InvoiceDoc } from "../presenters/stored-invoices.js";

/**
 * A place in an account's invoice sequence (`seq`: the order lists follow), claimed for one invoice before it is
 * stored there: its `_id` (`<account>/<seq>`) decides the race, so the invoices themselves need no unique index on
 * `(accountId, seq)`, which a shard key that splits an account could not prefix (issue 48). A place whose invoice is
 * then not stored (it existed, or its insert failed) stays unused: the sequence orders, it does not count.
 */
interface PlaceDoc {
  _id: string;
  accountId: string;
  seq: number;
  invoiceId: ObjectId;
  claimedAt: Date;
}

/** Each failed attempt means other invoices took the places tried: only a long burst of concurrent inserts. */
const MAX_CLAIM_ATTEMPTS = 100;

export function createInvoicePlaces(db: Db, invoices: Collection<InvoiceDoc>) {
  const places = db.collection<PlaceDoc>("invoicePlaces");
  /** The last place this process gave in each account's sequence: every claim's first guess. */
  const given = lastOfEach();

  /**
   * The last place given: claimed, or held by an invoice stored before places were claimed. The invoices are read only
   * for an account with no claim yet: its first claim came after every invoice stored before, so a claim is the last
   * (on FerretDB that read decoded all of the account's invoices, once per billing call).
   */
  const lastPlace = async (accountId: string) => {
    const latest = { sort: { seq: -1 }, projection: { seq: 1 } } as const;
    const claimed = await places.findOne({ accountId }, latest);
    return claimed?.seq ?? (await invoices.findOne({ accountId }, latest))?.seq ?? 0;
  };

  return {
    async ensureIndexes() {
      // The last place given, for a claim's first guess.
      await places.createIndex({ accountId: 1, seq: 1 });
    },

    /**
     * The next places of the sequence, one per invoice in order, in one unordered insert of their claims (each decided
     * by its `_id`); places lost to other invoices are claimed again after the last one given, so an invoice whose
     * place was lost comes after the others of its batch. The first attempt trusts the last place this process gave
     * (`guesses`, to be given another), a wrong guess costing an attempt.
     */
    async claim(accountId: string, invoiceIds: ObjectId[], guesses: LastOfEach = given): Promise<number[]> {
      const seqs: number[] = [];
      let unplaced = invoiceIds.map((invoiceId, index) => ({ invoiceId, index }));
      let guess = guesses.get(accountId);
      for (let attempt = 1; attempt <= MAX_CLAIM_ATTEMPTS && unplaced.length > 0; attempt += 1) {
        const after = guess ?? (await lastPlace(accountId));
        guess = undefined;
        const claimedAt = new Date();
        const claims = unplaced.map(({ invoiceId }, offset): PlaceDoc => {
          const seq = after + offset + 1;
          return { _id: `${accountId}/${seq}`, accountId, seq, invoiceId, claimedAt };
        });
        const won = await wonInserts(places.insertMany(claims, { ordered: false }), claims.length);
        for (const [offset, { index }] of unplaced.entries()) {
          if (won.has(offset)) seqs[index] = (claims[offset] as PlaceDoc).seq;
        }
        if (won.size > 0) guesses.remember(accountId, Math.max(...[...won].map((offset) => after + offset + 1)));
        unplaced = unplaced.filter((_, offset) => !won.has(offset));
      }
      if (unplaced.length > 0)
        throw new Error(`no free place in the invoice sequence after ${MAX_CLAIM_ATTEMPTS} tries`);
      return seqs;
    },
  };
}

export type InvoicePlaces = ReturnType<typeof createInvoicePlaces>;
