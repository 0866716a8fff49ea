import type { Filter, ObjectId } from "mongodb";
import { canonicalId, toObjectId } from "../db/ids.js";
import type { InvoiceDoc } from "../presenters/stored-invoices.js";

/**
 * An invoice named with its contract, as a writer that has read it knows it. Its id is derived from the contract
 * (services/billing/invoice-id.ts), so the contract adds no condition; it carries the invoices' shard key
 * (`{ accountId: 1, contractId: 1 }`, db/shard-plan.ts), so that a cluster routes the write to one shard.
 */
export interface InvoiceRef {
  id: string;
  contractId: string;
}

/**
 * The filter of a write to one invoice by its ref (undefined for an id that names nothing): on a sharded cluster its
 * key's fields, so that the write goes to one shard; elsewhere `_id` alone, the one filter FerretDB serves without
 * decoding the whole collection (a backlog's chunk of 20 lives took 3–4 s at 300 invoices stored with any other
 * field). The writer read the invoice for the account, and its id is derived from the account and contract.
 */
export const refFilter = (accountId: string, { id, contractId }: InvoiceRef, onCluster: boolean) => {
  const _id = toObjectId(id);
  if (!_id) return undefined;
  return onCluster ? { _id, accountId, contractId: canonicalId(contractId) } : { _id };
};

/** These invoices of the account, by id and contract (both `$in`: routed to the contracts' shards on a cluster). */
export const ofContracts = (accountId: string, named: { _id: ObjectId; contractId: string }[]): Filter<InvoiceDoc> => ({
  accountId,
  contractId: { $in: [...new Set(named.map(({ contractId }) => contractId))] },
  _id: { $in: named.map(({ _id }) => _id) },
});
