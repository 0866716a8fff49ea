import type { ContractsApi } from "../api.js";
import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor } from "../pagination.js";
import type { Transport } from "../transport.js";

export function contractsResource({ trpc, call, callOnce }: Transport): ContractsApi {
  const list: ContractsApi["list"] = (params = {}) => call((signal) => trpc.contracts.list.query(params, { signal }), true);
  return {
    create: (input) => callOnce((options) => trpc.contracts.create.mutate(input, options)).then(({ contract }) => contract),
    get: (contractId) => call((signal) => trpc.contracts.get.query({ contractId }, { signal }), true).then(({ contract }) => contract),
    // Keyed: a retry after a lost answer gets the first deletion's answer, not a 404 for a delete that happened.
    delete: (contractId) => callOnce((options) => trpc.contracts.delete.mutate({ contractId }, options)).then(({ contract }) => contract),
    list,
    listAll: (params = {}) =>
      new AutoPaginator((cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }), (page) => page.contracts, followNextCursor),
  };
}
