import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor } from "../pagination.js";
import type { Transport } from "../transport.js";
import type { Inputs, Outputs, WithoutCursor } from "../types.js";

type Customers = Inputs["customers"];
type CustomerPage = Outputs["customers"]["list"];

export function customersResource({ trpc, call }: Transport) {
  const list = (params: Customers["list"] = {}) => call((signal) => trpc.customers.list.query(params, { signal }), true);
  return {
    /** Creates a customer; `name` must be unique in the account (ConflictError otherwise). Not retried. */
    create: (input: Customers["create"]) =>
      call((signal) => trpc.customers.create.mutate(input, { signal }), false).then(({ customer }) => customer),
    /** Replaces the fields given, keeps the others. */
    update: (customerId: string, changes: Omit<Customers["update"], "customerId">) =>
      call((signal) => trpc.customers.update.mutate({ ...changes, customerId }, { signal }), false).then(({ customer }) => customer),
    /** By service id or, failing that, by externalId (as `GET /customers/{customerId}`). */
    get: (customerId: string) => call((signal) => trpc.customers.get.query({ customerId }, { signal }), true).then(({ customer }) => customer),
    /** Exact, case-sensitive name match. */
    getByName: (name: string) => call((signal) => trpc.customers.getByName.query({ name }, { signal }), true).then(({ customer }) => customer),
    /** One page: `{ customers, total, hasMore, nextCursor }`. */
    list,
    /** Every customer, page after page: `for await (const customer of client.customers.listAll())`. */
    listAll: (params: WithoutCursor<Customers["list"]> = {}) =>
      new AutoPaginator<CustomerPage, CustomerPage["customers"][number]>(
        (cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }),
        (page) => page.customers,
        followNextCursor,
      ),
  };
}
