import type {
  contractCreate,
  contractListQuery,
  contractTermination,
  contractUpdate,
  seatChangeCreate,
} from "@billing/shared";
import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor, type WithoutCursor } from "../pagination.js";
import type { KeyedRequestOptions, RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { Contract, ContractHistoryEntry, ContractList, Input, SeatSchedule } from "../types.js";

export type ContractCreateParams = Input<typeof contractCreate>;
export type ContractListParams = Input<typeof contractListQuery>;
export type ContractUpdateParams = Input<typeof contractUpdate>;
export type ContractTerminateParams = Input<typeof contractTermination>;
export type SeatChangeParams = Input<typeof seatChangeCreate>;

export interface ContractsApi {
  /** Creates a contract for a customer of the account. Keyed: created once. */
  create(input: ContractCreateParams, options?: KeyedRequestOptions): Promise<Contract>;
  get(contractId: string, options?: RequestOptions): Promise<Contract>;
  /**
   * Soft-deletes the contract: it comes back with `deletedAt` and status `Terminated`, then leaves every read.
   * Keyed: a retry gets the first answer, not a NotFoundError.
   */
  delete(contractId: string, options?: KeyedRequestOptions): Promise<Contract>;
  /**
   * Pauses (`Inactive`) or resumes (`Active`) the contract from the UTC day `effectiveFrom` (default today), and/or
   * amends its fields that do not price (name, endDate, autoRenewContract…), or its terms (products, productGroups)
   * from the UTC day `effectiveFrom` (a new `version`). Keyed: a retry gets the first answer, not the ConflictError
   * a second change would get.
   */
  update(contractId: string, params: ContractUpdateParams, options?: KeyedRequestOptions): Promise<Contract>;
  /** Terminates the contract at `at` (default now; a future `at` makes it PendingTermination until then). Keyed. */
  terminate(contractId: string, params?: ContractTerminateParams, options?: KeyedRequestOptions): Promise<Contract>;
  /**
   * Changes a PER_SEAT product's seats from the UTC day `effectiveFrom` (prorated by days; a prepaid cycle already
   * issued is adjusted on the next invoice). Keyed: a retry gets the first answer.
   */
  changeSeats(contractId: string, params: SeatChangeParams, options?: KeyedRequestOptions): Promise<Contract>;
  /** The seat schedule of each PER_SEAT product: its initial seats, then each change entered. */
  seats(contractId: string, options?: RequestOptions): Promise<SeatSchedule["seats"]>;
  /** The contract's transitions and renewals, oldest first. */
  history(contractId: string, options?: RequestOptions): Promise<ContractHistoryEntry[]>;
  /** One page: `{ contracts, total, hasMore, nextCursor }`. */
  list(params?: ContractListParams, options?: RequestOptions): Promise<ContractList>;
  listAll(params?: WithoutCursor<ContractListParams>, options?: RequestOptions): AutoPaginator<ContractList, Contract>;
}

export function contractsResource({ trpc, call }: Transport): ContractsApi {
  const list: ContractsApi["list"] = (params = {}, options) =>
    call("safe", (attempt) => trpc.contracts.list.query(params, attempt), options);
  return {
    create: (input, options) =>
      call("keyed", (attempt) => trpc.contracts.create.mutate(input, attempt), options).then((r) => r.contract),
    get: (contractId, options) =>
      call("safe", (attempt) => trpc.contracts.get.query({ contractId }, attempt), options).then((r) => r.contract),
    delete: (contractId, options) =>
      call("keyed", (attempt) => trpc.contracts.delete.mutate({ contractId }, attempt), options).then(
        (r) => r.contract,
      ),
    update: (contractId, params, options) =>
      call("keyed", (attempt) => trpc.contracts.update.mutate({ ...params, contractId }, attempt), options).then(
        (r) => r.contract,
      ),
    terminate: (contractId, params = {}, options) =>
      call("keyed", (attempt) => trpc.contracts.terminate.mutate({ ...params, contractId }, attempt), options).then(
        (r) => r.contract,
      ),
    changeSeats: (contractId, params, options) =>
      call("keyed", (attempt) => trpc.contracts.changeSeats.mutate({ ...params, contractId }, attempt), options).then(
        (r) => r.contract,
      ),
    seats: (contractId, options) =>
      call("safe", (attempt) => trpc.contracts.seats.query({ contractId }, attempt), options).then((r) => r.seats),
    history: (contractId, options) =>
      call("safe", (attempt) => trpc.contracts.history.query({ contractId }, attempt), options).then((r) => r.history),
    list,
    listAll: (params = {}, options) =>
      new AutoPaginator(
        (cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }, options),
        (page) => page.contracts,
        followNextCursor,
      ),
  };
}
