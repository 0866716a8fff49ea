import type { Collection, Db } from "mongodb";
import { createIdPointers } from "../db/id-pointers.js";
import type { InvoiceDoc } from "../presenters/stored-invoices.js";

/**
 * An invoice's contract, by the invoice's id (`invoiceContracts`, db/id-pointers.ts): on a sharded cluster the
 * invoices are keyed `{ accountId, contractId }` and an invoice's id (a hash of its account, contract and cycle:
 * services/billing/invoice-id.ts) does not name its contract, so a lookup by id reads the pointer first. Written for a
 * batch before its invoices; the stored ones are noted by the upkeep's step (`invoice_migrations`).
 */
export const createInvoiceContracts = (db: Db, invoices: Collection<InvoiceDoc>) =>
  createIdPointers(db, invoices, {
    pointers: "invoiceContracts",
    field: "contractId",
    migrations: "invoice_migrations",
    migrationId: "contracts-noted",
  });

export type InvoiceContracts = ReturnType<typeof createInvoiceContracts>;
