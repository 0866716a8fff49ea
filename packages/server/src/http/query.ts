/**
 * The query string in the shape trpc-to-openapi reads from `req.query` (each name with all its values), on an
 * object without a prototype. Left to itself the library collects names into a plain object, where
 * `?__proto__=x` or `?constructor=x` finds Object.prototype's members instead of nothing, and the call fails with a
 * 500.
 */
export function parseQuery(url: URL): Record<string, string[]> {
  const query: Record<string, string[]> = Object.create(null);
  for (const [name, value] of url.searchParams) {
    query[name] ??= [];
    query[name].push(value);
  }
  return query;
}
