import type { CustomersApi } from "../api.js";
import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor } from "../pagination.js";
import type { Transport } from "../transport.js";

export function customersResource({ trpc, call, callOnce }: Transport): CustomersApi {
  const list: CustomersApi["list"] = (params = {}) => call((signal) => trpc.customers.list.query(params, { signal }), true);
  return {
    create: (input) => callOnce((options) => trpc.customers.create.mutate(input, options)).then(({ customer }) => customer),
    update: (customerId, changes) =>
      callOnce((options) => trpc.customers.update.mutate({ ...changes, customerId }, options)).then(({ customer }) => customer),
    get: (customerId) => call((signal) => trpc.customers.get.query({ customerId }, { signal }), true).then(({ customer }) => customer),
    getByName: (name) => call((signal) => trpc.customers.getByName.query({ name }, { signal }), true).then(({ customer }) => customer),
    list,
    listAll: (params = {}) =>
      new AutoPaginator((cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }), (page) => page.customers, followNextCursor),
  };
}
