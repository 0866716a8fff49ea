import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor } from "../pagination.js";
import type { Transport } from "../transport.js";
import type { Inputs, Outputs, WithoutCursor } from "../types.js";

type Contracts = Inputs["contracts"];
type ContractPage = Outputs["contracts"]["list"];

export function contractsResource({ trpc, call }: Transport) {
  const list = (params: Contracts["list"] = {}) => call((signal) => trpc.contracts.list.query(params, { signal }), true);
  return {
    /** Creates a contract for a customer of the account. Not retried (a repeat would create a second contract). */
    create: (input: Contracts["create"]) =>
      call((signal) => trpc.contracts.create.mutate(input, { signal }), false).then(({ contract }) => contract),
    get: (contractId: string) => call((signal) => trpc.contracts.get.query({ contractId }, { signal }), true).then(({ contract }) => contract),
    /** Soft-deletes the contract: it comes back with `deletedAt` and status `Terminated`, then leaves every read. */
    delete: (contractId: string) =>
      call((signal) => trpc.contracts.delete.mutate({ contractId }, { signal }), false).then(({ contract }) => contract),
    /** One page: `{ contracts, total, hasMore, nextCursor }`. */
    list,
    /** Every live contract: `for await (const contract of client.contracts.listAll())`. */
    listAll: (params: WithoutCursor<Contracts["list"]> = {}) =>
      new AutoPaginator<ContractPage, ContractPage["contracts"][number]>(
        (cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }),
        (page) => page.contracts,
        followNextCursor,
      ),
  };
}
