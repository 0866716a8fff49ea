import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor } from "../pagination.js";
import type { Transport } from "../transport.js";
import type { Inputs, Outputs, WithoutCursor } from "../types.js";

type Invoices = Inputs["invoices"];
type InvoicePage = Outputs["invoices"]["list"];

export function invoicesResource({ trpc, call }: Transport) {
  const list = (params: Invoices["list"] = {}) => call((signal) => trpc.invoices.list.query(params, { signal }), true);
  return {
    get: (invoiceId: string) => call((signal) => trpc.invoices.get.query({ invoiceId }, { signal }), true).then(({ invoice }) => invoice),
    /** One page, optionally of one customer's or one contract's invoices: `{ invoices, total, hasMore, nextCursor }`. */
    list,
    listAll: (params: WithoutCursor<Invoices["list"]> = {}) =>
      new AutoPaginator<InvoicePage, InvoicePage["invoices"][number]>(
        (cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }),
        (page) => page.invoices,
        followNextCursor,
      ),
  };
}
