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

/** The filter of a write to one invoice by its ref: undefined for an id that names nothing. */
export const refFilter = (accountId: string, { id, contractId }: InvoiceRef) => {
  const _id = toObjectId(id);
  return _id && { _id, accountId, contractId: canonicalId(contractId) };
};

/** These invoices of the account, by id and contract (both `$in`: routed to the contracts' shards on a cluster). */
export const ofContracts = (accountId: string, named: { _id: ObjectId; contractId: string }[]): Filter<InvoiceDoc> => ({
  accountId,
  contractId: { $in: [...new Set(named.map(({ contractId }) => contractId))] },
  _id: { $in: named.map(({ _id }) => _id) },
});
