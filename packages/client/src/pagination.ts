/**
 * Every item of a list, fetched page by page as iteration goes:
 * `for await (const item of list)` walks items, `for await (const page of list.pages())` walks pages.
 */
export class AutoPaginator<TPage, TItem> implements AsyncIterable<TItem> {
  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<TPage>,
    private readonly itemsOf: (page: TPage) => TItem[],
    /** The cursor of the page after this one, or undefined on the last page. */
    private readonly nextCursorOf: (page: TPage) => string | undefined,
  ) {}

  async *pages(): AsyncGenerator<TPage, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.fetchPage(cursor);
      yield page;
      cursor = this.nextCursorOf(page);
    } while (cursor !== undefined);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<TItem, void, undefined> {
    for await (const page of this.pages()) yield* this.itemsOf(page);
  }

  /** Collects every item (mind the size of the list). */
  async toArray(): Promise<TItem[]> {
    const items: TItem[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}

/** Lists with `nextCursor` (customers, contracts, invoices). */
export const followNextCursor = (page: { nextCursor?: string | undefined }) => page.nextCursor;

/** Lists without `nextCursor` (credits, events): the next page starts after the last item of a full page. */
export const afterLastItem = (items: { id: string }[], limit: number): string | undefined =>
  items.length === limit ? items.at(-1)?.id : undefined;

/** Page size of `listAll`/`queryAll` unless the caller sets one: fewer round trips than the server's default 10. */
export const AUTO_PAGE_SIZE = 100;

/** The parameters of a `listAll`/`queryAll`: those of its `list`/`query`, but the cursor is the paginator's. */
export type WithoutCursor<T> = Omit<T, "cursor">;
