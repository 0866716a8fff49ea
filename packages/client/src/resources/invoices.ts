import type { InvoicesApi } from "../api.js";
import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor } from "../pagination.js";
import type { Transport } from "../transport.js";

export function invoicesResource({ trpc, call }: Transport): InvoicesApi {
  const list: InvoicesApi["list"] = (params = {}) => call((signal) => trpc.invoices.list.query(params, { signal }), true);
  return {
    get: (invoiceId) => call((signal) => trpc.invoices.get.query({ invoiceId }, { signal }), true).then(({ invoice }) => invoice),
    list,
    // Retried: a preview stores nothing.
    preview: (params) => call((signal) => trpc.invoices.preview.mutate(params, { signal }), true).then(({ invoice }) => invoice),
    listAll: (params = {}) =>
      new AutoPaginator((cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }), (page) => page.invoices, followNextCursor),
  };
}
