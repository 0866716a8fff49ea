import type { Collection, Filter, ObjectId } from "mongodb";
import { type AfterId, afterId, type MigrationProgress, pagedMigration, walkById } from "../db/paged-migration.js";
import type { createAliasClaims } from "./customer-aliases.js";

/**
 * How far the claiming of values stored before their claims existed (issue 48: names, aliases) has come: `after` is
 * the last customer read, in `_id` order; `done` once every customer's values are claimed. One document per kind of
 * value in `customer_migrations` (`_id` `names-claimed`, `aliases-claimed`).
 */
export type ClaimMigrationDoc = MigrationProgress<AfterId<ObjectId>>;

/** Customers one step claims the values of: a bounded page, redone whole (writing nothing) after a crash. */
export const CUSTOMERS_PER_CLAIM_STEP = 1000;

interface StoredCustomer {
  _id: ObjectId;
  accountId: string;
  name: string;
  aliases?: string[] | undefined;
  createdAt: Date;
}

interface ClaimMigration {
  /** `customer_migrations`' document. */
  id: string;
  claims: ReturnType<typeof createAliasClaims>;
  valuesOf: (customer: StoredCustomer) => string[];
  /** Done once every value is claimed (before it is marked done): drops what decided the race meanwhile. */
  finish?: () => Promise<void>;
}

/**
 * The upkeep worker's step that claims one kind of value customers stored before claims existed, and whether it is
 * done. Bounded (a page of CUSTOMERS_PER_CLAIM_STEP customers per tick) and resumable (a claim already there is kept,
 * so a lost progress redoes its page writing nothing): db/paged-migration.ts.
 */
export function createClaimMigration<T extends StoredCustomer>(
  customers: Collection<T>,
  migrations: Collection<ClaimMigrationDoc>,
  { id, claims, valuesOf, finish }: ClaimMigration,
) {
  const migration = pagedMigration(migrations, id, { remembersDone: true });
  const storedAfter = (after: ObjectId | undefined) =>
    customers
      .find(afterId(after) as Filter<T>)
      .project<StoredCustomer>({ accountId: 1, name: 1, aliases: 1, createdAt: 1 });
  const claimValues = (page: StoredCustomer[]) =>
    claims.claimStored(
      page.flatMap(({ _id, accountId, createdAt, ...held }) =>
        valuesOf({ _id, accountId, createdAt, ...held }).map((value) => ({ _id, accountId, value, at: createdAt })),
      ),
    );
  return {
    /**
     * Whether every stored value has its claim: from then on a value's claim alone names its customer (no customer
     * holds a value without its claim). Read per call, by `_id`, so that no instance trusts a state it has not read.
     */
    done: migration.done,

    /** Marks it done: a database without customers has nothing to claim. */
    markDone: migration.markDone,

    /**
     * Claims the values of the next page of customers in `_id` order, then saves the progress; once none is left,
     * finishes and marks it done. Returns how many customers it read (0: done).
     */
    step: () => migration.step(walkById(storedAfter, CUSTOMERS_PER_CLAIM_STEP, claimValues), finish),
  };
}
