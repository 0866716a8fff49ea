import { useState } from "react";

/**
 * Cursor paging as the API offers it: the cursors of the pages seen so far, so that "Previous" goes back without
 * offsets. `cursor` is what the current page's call passes.
 */
export function useCursorPages() {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const page = cursors.length;
  return {
    cursor: cursors[cursors.length - 1],
    page,
    next: (cursor: string) => setCursors((seen) => [...seen, cursor]),
    previous: () => setCursors((seen) => (seen.length > 1 ? seen.slice(0, -1) : seen)),
    reset: () => setCursors([undefined]),
  };
}

export function Pager({
  label,
  pages,
  nextCursor,
  total,
}: {
  label: string;
  pages: ReturnType<typeof useCursorPages>;
  nextCursor: string | undefined;
  total?: number;
}) {
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" onClick={pages.previous} disabled={pages.page === 1}>
        Previous
      </button>
      <span>
        Page {pages.page}
        {total !== undefined && ` · ${total} in all`}
      </span>
      <button type="button" onClick={() => nextCursor && pages.next(nextCursor)} disabled={!nextCursor}>
        Next
      </button>
    </nav>
  );
}
