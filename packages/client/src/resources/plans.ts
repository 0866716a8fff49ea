import type {
  planContractsQuery,
  planCreate,
  planListQuery,
  planMigrationCreate,
  planSimulationRequest,
  planVersionCreate,
} from "@billing/shared";
import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor, type WithoutCursor } from "../pagination.js";
import type { KeyedRequestOptions, RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type {
  Contract,
  Input,
  Plan,
  PlanContractList,
  PlanList,
  PlanMigration,
  PlanSimulation,
  PlanVersion,
} from "../types.js";

export type PlanCreateParams = Input<typeof planCreate>;
export type PlanListParams = Input<typeof planListQuery>;
export type PlanVersionCreateParams = Input<typeof planVersionCreate>;
export type PlanContractsParams = Omit<Input<typeof planContractsQuery>, "planId">;
export type PlanMigrationParams = Input<typeof planMigrationCreate>;
export type PlanSimulationParams = Input<typeof planSimulationRequest>;

export interface PlansApi {
  /** Creates a plan (version 1); `key` must be unique in the account (ConflictError otherwise). Keyed. */
  create(input: PlanCreateParams, options?: KeyedRequestOptions): Promise<Plan>;
  /** By id or key: the current terms and every version with how many contracts follow it. */
  get(planId: string, options?: RequestOptions): Promise<Plan>;
  /** One version's terms (versions never change). */
  getVersion(planId: string, version: number, options?: RequestOptions): Promise<PlanVersion>;
  /** The plan's next version, which becomes its current one. Keyed. */
  addVersion(planId: string, terms: PlanVersionCreateParams, options?: KeyedRequestOptions): Promise<Plan>;
  /** No new contract may take it; its contracts keep billing. Safe: archiving again changes nothing. */
  archive(planId: string, options?: RequestOptions): Promise<Plan>;
  /** One page: `{ plans, total, hasMore, nextCursor }`. */
  list(params?: PlanListParams, options?: RequestOptions): Promise<PlanList>;
  listAll(params?: WithoutCursor<PlanListParams>, options?: RequestOptions): AutoPaginator<PlanList, Plan>;
  /** The plan's subscribers (of one `version`), one page. */
  contracts(planId: string, params?: PlanContractsParams, options?: RequestOptions): Promise<PlanContractList>;
  contractsAll(
    planId: string,
    params?: WithoutCursor<PlanContractsParams>,
    options?: RequestOptions,
  ): AutoPaginator<PlanContractList, Contract>;
  /** Starts moving the contracts of `fromVersions` to `toVersion`; its progress with `migration`. Keyed. */
  migrate(planId: string, params: PlanMigrationParams, options?: KeyedRequestOptions): Promise<PlanMigration>;
  migration(planId: string, migrationId: string, options?: RequestOptions): Promise<PlanMigration>;
  /** What candidate terms would have billed the plan's contracts over `from`…`to`, beside what they billed. */
  simulate(planId: string, params: PlanSimulationParams, options?: RequestOptions): Promise<PlanSimulation>;
}

export function plansResource({ trpc, call }: Transport): PlansApi {
  const list: PlansApi["list"] = (params = {}, options) =>
    call("safe", (attempt) => trpc.plans.list.query(params, attempt), options);
  const contracts: PlansApi["contracts"] = (planId, params = {}, options) =>
    call("safe", (attempt) => trpc.plans.contracts.query({ ...params, planId }, attempt), options);
  return {
    create: (input, options) =>
      call("keyed", (attempt) => trpc.plans.create.mutate(input, attempt), options).then((r) => r.plan),
    get: (planId, options) =>
      call("safe", (attempt) => trpc.plans.get.query({ planId }, attempt), options).then((r) => r.plan),
    getVersion: (planId, version, options) =>
      call("safe", (attempt) => trpc.plans.getVersion.query({ planId, version }, attempt), options).then(
        (r) => r.version,
      ),
    addVersion: (planId, terms, options) =>
      call("keyed", (attempt) => trpc.plans.addVersion.mutate({ ...terms, planId }, attempt), options).then(
        (r) => r.plan,
      ),
    archive: (planId, options) =>
      call("safe", (attempt) => trpc.plans.archive.mutate({ planId }, attempt), options).then((r) => r.plan),
    list,
    listAll: (params = {}, options) =>
      new AutoPaginator(
        (cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }, options),
        (page) => page.plans,
        followNextCursor,
      ),
    contracts,
    contractsAll: (planId, params = {}, options) =>
      new AutoPaginator(
        (cursor) => contracts(planId, { limit: AUTO_PAGE_SIZE, ...params, cursor }, options),
        (page) => page.contracts,
        followNextCursor,
      ),
    migrate: (planId, params, options) =>
      call("keyed", (attempt) => trpc.plans.migrate.mutate({ ...params, planId }, attempt), options).then(
        (r) => r.migration,
      ),
    migration: (planId, migrationId, options) =>
      call("safe", (attempt) => trpc.plans.migration.query({ planId, migrationId }, attempt), options).then(
        (r) => r.migration,
      ),
    simulate: (planId, params, options) =>
      call("safe", (attempt) => trpc.plans.simulate.mutate({ ...params, planId }, attempt), options).then(
        (r) => r.simulation,
      ),
  };
}
