import type { Collection, Document, Filter } from "mongodb";

/** A page of the accounts holding some work, in id order (see accountsHolding). */
export interface AccountsPage {
  /** Account ids, ascending, each once. */
  ids: string[];
  /** Whether no account past the last of `ids` holds any: false when the page stopped at `wanted`. */
  complete: boolean;
}

/**
 * Up to `wanted` accounts after `after` (from the first when undefined) holding a document that matches `filter`, in
 * id order: the billing scheduler's look for work across accounts (services/billing/accounts-with-work.ts). Reads the
 * owner's `(accountId, …)` index sorted by `accountId`, only `accountId` of each document, `wanted` documents a read;
 * each read starts past the last account found, so an account with many documents costs one read, not one a document,
 * and at most `wanted` reads are made. An account with nothing matching costs no read at all.
 */
export async function accountsHolding<Doc extends Document & { accountId: string }>(
  collection: Collection<Doc>,
  filter: Filter<Doc>,
  after: string | undefined,
  wanted: number,
): Promise<AccountsPage> {
  const ids: string[] = [];
  // Account ids are non-empty: "" is before them all, and keeps one query shape for the first page and the next.
  let from = after ?? "";
  while (ids.length < wanted) {
    const limit = wanted - ids.length;
    const docs = await collection
      .find({ ...filter, accountId: { $gt: from } } as Filter<Doc>, { projection: { _id: 0, accountId: 1 } })
      .sort({ accountId: 1 })
      .limit(limit)
      .toArray();
    for (const { accountId } of docs) if (ids.at(-1) !== accountId) ids.push(accountId);
    // A short page read everything past `from`; a full one goes on past its last account (whatever more it holds).
    const last = ids.at(-1);
    if (docs.length < limit || last === undefined) return { ids, complete: true };
    from = last;
  }
  return { ids, complete: false };
}
