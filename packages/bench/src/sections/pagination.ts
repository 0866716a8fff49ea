import { type Document, ObjectId } from "mongodb";
// The service's own cursor encoding: page 1,000 is reached directly, not by walking 999 pages.
import { encodeCursor } from "../../../server/src/db/pagination.js";
import { type BenchContext, insertCopies } from "../context.js";
import { formatCount, progress } from "../progress.js";
import { interleavedRounds, type LatencySummary, ratio, summarize } from "../stats.js";

const PAGE = 100;

export interface PaginationSizeResult {
  contracts: number;
  /** `GET /contracts?limit=100`: the page and its `total`. */
  apiFirstPage: LatencySummary;
  /** The page's own query through the raw driver (the filter, order and limit the list sends), without `total`. */
  rawPageQuery: LatencySummary;
  /** The count behind `total` through the raw driver. */
  rawTotalCount: LatencySummary;
}

export interface PaginationResult {
  sizes: PaginationSizeResult[];
  deepPage: number;
  /** `GET /contracts?limit=100&cursor=…` at page `deepPage`, on the largest size. */
  apiDeepPage: LatencySummary;
  /** p50 of page `deepPage` / p50 of page 1. */
  deepToFirst: number;
  /** p50 of the count at the largest size / at the smallest: how `total` grows with the collection. */
  totalCountGrowth: number;
}

/**
 * Contracts are loaded as copies of one the API created (the service's storage shape); then page 1 and a deep
 * page of `GET /contracts` are timed beside the raw page query and the raw count behind `total`, at a tenth of
 * the contracts and at all of them.
 */
export async function benchPagination(context: BenchContext): Promise<PaginationResult> {
  const { api } = context;
  const { contracts: target, deepPage } = context.options.sizes;
  const contracts = context.db.collection("contracts");
  await api.call(
    "POST",
    "/contracts",
    {
      customerId: context.customerIds[0],
      name: "bench-contract-0",
      startDate: "2026-01-01T00:00:00Z",
      products: [{ displayName: "API calls", catalogProductId: "api-calls", commitment: { units: 1000, price: 0.01 } }],
    },
    201,
  );
  const template = await contracts.findOne({ accountId: api.accountId });
  if (!template) throw new Error("the contract created through the API is not in the contracts collection");
  const { _id: templateId, ...fields } = template;
  const ids: ObjectId[] = [templateId];

  const filter = { accountId: api.accountId, deletedAt: null };
  const sizes: PaginationSizeResult[] = [];
  let apiDeepPage: LatencySummary | undefined;
  for (const size of [target / 10, target]) {
    const copies = await insertCopies(
      contracts,
      fields as Document,
      size - ids.length,
      (index) => ({ name: `bench-contract-${ids.length + index}` }),
      "contracts",
    );
    ids.push(...copies);
    // ObjectIds made by two processes in the same second need not sort in creation order: sort as the list does.
    const ordered = ids.map((id) => id.toHexString()).sort();
    const deepCursor = size === target ? encodeCursor(new ObjectId(ordered[(deepPage - 1) * PAGE - 1])) : undefined;

    const series: Record<string, () => Promise<unknown>> = {
      apiFirstPage: () => api.call("GET", `/contracts?limit=${PAGE}`),
      rawPageQuery: () =>
        contracts
          .find(filter)
          .sort({ _id: 1 })
          .limit(PAGE + 1)
          .toArray(),
      rawTotalCount: () => contracts.countDocuments(filter),
    };
    if (deepCursor) {
      series.apiDeepPage = async () => {
        const page = await api.call<{ contracts: { id: string }[] }>(
          "GET",
          `/contracts?limit=${PAGE}&cursor=${deepCursor}`,
        );
        if (page.contracts[0]?.id !== ordered[(deepPage - 1) * PAGE])
          throw new Error(`page ${deepPage} does not start where it should`);
      };
    }
    const samples = await interleavedRounds(series, { seconds: context.options.sizes.seriesSeconds * 2 }, (rounds) =>
      progress(`GET /contracts at ${formatCount(size)} contracts: round ${rounds}`),
    );
    sizes.push({
      contracts: size,
      apiFirstPage: summarize(samples.apiFirstPage!),
      rawPageQuery: summarize(samples.rawPageQuery!),
      rawTotalCount: summarize(samples.rawTotalCount!),
    });
    if (samples.apiDeepPage) apiDeepPage = summarize(samples.apiDeepPage);
  }

  const largest = sizes.at(-1)!;
  return {
    sizes,
    deepPage,
    apiDeepPage: apiDeepPage!,
    deepToFirst: ratio(apiDeepPage!.p50Ms, largest.apiFirstPage.p50Ms),
    totalCountGrowth: ratio(largest.rawTotalCount.p50Ms, sizes[0]!.rawTotalCount.p50Ms),
  };
}
