import type { Collection, Db } from "mongodb";
import { createIdPointers } from "../db/id-pointers.js";
import type { EntryDoc } from "../presenters/stored-credits.js";

/**
 * A grant's customer, by the grant's entry id (`creditGrantCustomers`, db/id-pointers.ts): on a sharded cluster the
 * ledger is keyed `{ accountId, customerId }` and `POST /credits/{entryId}/void` and `…/recurrence/cancel` name the
 * entry alone, so a lookup by id reads the pointer first. Grants only (the entries a request names by id); another
 * entry is read from the account's shards, as before. Written after the grant's entry (a refused grant writes
 * nothing; a crash between leaves a grant read from the account's shards); the stored grants are noted by the
 * upkeep's step (`credit_migrations`).
 */
export const createGrantCustomers = (db: Db, entries: Collection<EntryDoc>) =>
  createIdPointers(db, entries, {
    pointers: "creditGrantCustomers",
    field: "customerId",
    migrations: "credit_migrations",
    migrationId: "grant-customers-noted",
    pointed: { fields: ["type"], is: (entry) => entry.type === "Grant" },
  });
