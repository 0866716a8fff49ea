import { type Db, ObjectId } from "mongodb";
import { routedById } from "../db/find-owned.js";
import { canonicalId } from "../db/ids.js";
import type { Hooks } from "./hooks.js";

/**
 * A change of a contract in flight: written before the change checks what is invoiced and logs itself, removed once
 * it is done. A billing run that has stored an invoice looks for these (see changingAmong): a change that checked
 * before the invoice existed is then still visible, logged or not.
 */
interface ContractChangeInFlightDoc {
  _id: ObjectId;
  accountId: string;
  contractId: string;
  at: Date;
}

/** The notes of contract changes under way (services/contracts/commit.ts writes them, billing-guard.ts reads them). */
export function createContractChangeInFlightRepository(db: Db, hooks: Hooks) {
  const inFlight = db.collection<ContractChangeInFlightDoc>("contractChangesInFlight");
  return {
    async ensureIndexes() {
      await inFlight.createIndex({ accountId: 1, contractId: 1, at: 1 });
    },

    /**
     * Notes that a change of the contract is under way, before it checks what is invoiced; the function returned
     * removes the note once the change is done (logged and applied, or refused).
     */
    async announce(accountId: string, contractId: string): Promise<() => Promise<void>> {
      const id = canonicalId(contractId);
      await hooks("contracts.announce", id);
      const { insertedId } = await inFlight.insertOne({
        _id: new ObjectId(),
        accountId,
        contractId: id,
        at: new Date(),
      });
      return async () => {
        // With the key's fields on a sharded cluster (routedById): to the note's shard, not every shard.
        await inFlight.deleteOne(routedById(inFlight, { _id: insertedId }, { accountId, contractId: id }));
      };
    },

    /** Of these contracts, those with a change announced at or after `since` still under way (see announce). */
    async changingAmong(accountId: string, contractIds: string[], since: Date): Promise<Set<string>> {
      if (contractIds.length === 0) return new Set();
      const ids = contractIds.map(canonicalId);
      // One contract: an equality, as the index's prefix; several: an `$in` over it.
      const filter = {
        accountId,
        contractId: ids.length === 1 ? (ids[0] as string) : { $in: ids },
        at: { $gte: since },
      };
      const found = await inFlight.find(filter, { projection: { contractId: 1 } }).toArray();
      return new Set(found.map(({ contractId }) => contractId));
    },
  };
}

export type ContractChangeInFlightRepository = ReturnType<typeof createContractChangeInFlightRepository>;
