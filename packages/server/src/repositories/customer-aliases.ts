import { type Collection, type Db, type Filter, MongoBulkWriteError, type ObjectId } from "mongodb";
import { isDuplicateKeyError } from "../db/duplicate-key.js";
import { findOwned } from "../db/find-owned.js";
import { conflict } from "../domain/errors.js";

/**
 * Who holds an alias of an account: `_id` is `<accountId>/<alias>` (account ids are hex, so the first "/" splits
 * it), and the unique `_id` lets exactly one customer claim an alias, on FerretDB and MongoDB alike. A multikey
 * unique index on `customers.aliases` cannot do it: on MongoDB every customer without aliases collides.
 */
interface AliasClaimDoc {
  _id: string;
  accountId: string;
  alias: string;
  customerId: ObjectId;
  claimedAt: Date;
}

/**
 * A claim is written before its customer: a claim this young may belong to a write still in progress, so it
 * stands even though no customer holds the alias yet. An older claim whose customer does not hold the alias is
 * the leftover of a write that failed or crashed, and may be taken over.
 */
export const ALIAS_CLAIM_SETTLE_MS = 60_000;

type ClaimedFields = { _id: ObjectId; accountId: string; name: string; aliases?: string[] | undefined };

/** What one kind of claim is: its collection, what holding a value means, and the refusal when it is taken. */
interface ClaimKind {
  collection: "customerAliases" | "customerNames";
  /** The customer's field that lists the value (`aliases`) or is it (`name`). */
  field: "aliases" | "name";
  taken: (value: string) => Error;
}

const ALIASES: ClaimKind = {
  collection: "customerAliases",
  field: "aliases",
  taken: (alias) =>
    conflict(`The alias "${alias}" belongs to another customer`, [{ path: "aliases", message: `"${alias}" is taken` }]),
};

/**
 * A customer's name, claimed like an alias (issue 48): `_id` `<accountId>/<name>` in `customerNames` decides which of
 * two customers gets a name, so the customers collection needs no unique `(accountId, name)` index and can be sharded
 * by `_id` within an account (docs/scaling.md). A leftover claim (its customer renamed or never written) settles the
 * same way.
 */
export const NAMES: ClaimKind = {
  collection: "customerNames",
  field: "name",
  taken: (name) => conflict(`A customer named "${name}" already exists`),
};

export function createAliasClaims<T extends ClaimedFields>(db: Db, customers: Collection<T>, kind = ALIASES) {
  const { field, taken } = kind;
  const claims = db.collection<AliasClaimDoc>(kind.collection);
  const holds = (holder: Partial<ClaimedFields> | undefined, value: string) =>
    field === "name" ? holder?.name === value : holder?.aliases?.includes(value) === true;
  const claimId = (accountId: string, alias: string) => `${accountId}/${alias}`;

  async function stands(claim: AliasClaimDoc) {
    if (Date.now() - claim.claimedAt.getTime() < ALIAS_CLAIM_SETTLE_MS) return true;
    const holder = await findOwned(customers, claim.accountId, claim.customerId, { [field]: 1 });
    return holds(holder, claim.alias);
  }

  /** Some other customer listing the alias without a claim: customers stored before claims existed. */
  async function listedByAnother(accountId: string, customerId: ObjectId, alias: string) {
    const listing = await customers
      .find({ accountId, [field]: alias } as Filter<T>)
      .project<{ _id: ObjectId }>({ _id: 1 })
      .limit(2)
      .toArray();
    return listing.some(({ _id }) => !_id.equals(customerId));
  }

  /**
   * Claims one alias for the customer: true when newly claimed, false when the customer already held it.
   * `unclaimedMayList`: customers stored before claims existed may list it without a claim (false once a migration
   * claimed every stored value: then the claim alone decides, and no customer is read for it).
   */
  async function claimOne(accountId: string, customerId: ObjectId, alias: string, unclaimedMayList: boolean) {
    const _id = claimId(accountId, alias);
    for (;;) {
      try {
        await claims.insertOne({ _id, accountId, alias, customerId, claimedAt: new Date() });
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        const existing = await claims.findOne({ _id });
        if (!existing) continue; // released meanwhile: try again
        if (existing.customerId.equals(customerId)) return false;
        if (await stands(existing)) throw taken(alias);
        // A leftover: remove exactly it, then insert again; among several takers, the insert picks one.
        await claims.deleteOne({ _id, customerId: existing.customerId, claimedAt: existing.claimedAt });
        continue;
      }
      if (unclaimedMayList && (await listedByAnother(accountId, customerId, alias))) {
        await claims.deleteOne({ _id, customerId });
        throw taken(alias);
      }
      return true;
    }
  }

  /** Frees the customer's claims on these aliases (another customer's claims are never touched). */
  async function release(accountId: string, customerId: ObjectId, aliases: string[]) {
    if (aliases.length === 0) return;
    await claims.deleteMany({ _id: { $in: aliases.map((alias) => claimId(accountId, alias)) }, customerId });
  }

  /**
   * An alias another customer holds is refused before anything is claimed, so that the refusal writes nothing; the
   * claims' inserts still decide a race for an alias free when read here.
   */
  async function refuseHeld(accountId: string, customerId: ObjectId, aliases: string[]) {
    if (aliases.length === 0) return;
    const held = await claims.find({ _id: { $in: aliases.map((alias) => claimId(accountId, alias)) } }).toArray();
    for (const claim of held)
      if (!claim.customerId.equals(customerId) && (await stands(claim))) throw taken(claim.alias);
  }

  return {
    refuseHeld,

    /** The customer a value's claim names, if any: it holds the value unless the claim is young or a leftover. */
    async holderOf(accountId: string, value: string): Promise<ObjectId | undefined> {
      return (await claims.findOne({ _id: claimId(accountId, value) }))?.customerId;
    },
    // None beyond `_id_`: every read and guarded delete names its claims by `_id` (one, or a bounded `$in`), points
    // that `_id_` finds whatever else the filter checks.
    ensureIndexes: async () => {},

    /**
     * Claims every alias for the customer before the customer is written, or none: on a conflict (409) the
     * claims this call made are released (`checked`: refuseHeld was called for these aliases just before;
     * `unclaimedMayList`: see claimOne). Returns the newly claimed aliases, for the caller to release when its own
     * write fails.
     */
    async claim(
      accountId: string,
      customerId: ObjectId,
      aliases: string[],
      { checked = false, unclaimedMayList = true } = {},
    ): Promise<string[]> {
      if (!checked) await refuseHeld(accountId, customerId, aliases);
      const claimed: string[] = [];
      try {
        for (const alias of aliases)
          if (await claimOne(accountId, customerId, alias, unclaimedMayList)) claimed.push(alias);
      } catch (error) {
        await release(accountId, customerId, claimed);
        throw error;
      }
      return claimed;
    },
    release,

    /**
     * Claims values customers held before claims existed (a migration step): one claim each, dated when the customer
     * was stored, so it stands; a value already claimed keeps its claim.
     */
    async claimStored(held: { _id: ObjectId; accountId: string; value: string; at: Date }[]) {
      if (held.length === 0) return;
      const docs = held.map(({ _id: customerId, accountId, value, at }) => ({
        _id: claimId(accountId, value),
        accountId,
        alias: value,
        customerId,
        claimedAt: at,
      }));
      await claims.insertMany(docs, { ordered: false }).catch((error) => {
        const writeErrors = error instanceof MongoBulkWriteError ? [error.writeErrors].flat() : [];
        if (writeErrors.length === 0 || !writeErrors.every(isDuplicateKeyError)) throw error;
      });
    },
  };
}
