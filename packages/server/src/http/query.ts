import { badRequest } from "../domain/errors.js";

/**
 * One name or value of a query string, decoded as `URLSearchParams` does (`+` is a space), except that percent-escapes
 * that are not UTF-8 are refused, naming the parameter, rather than read as U+FFFD.
 */
function decodeComponent(text: string, parameter: string): string {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    const message = "is not valid percent-encoded UTF-8";
    throw badRequest(`Query parameter ${parameter} ${message}`, [{ path: parameter, message }]);
  }
}

/**
 * The query string in the shape trpc-to-openapi reads from `req.query` (each name with all its values), on an
 * object without a prototype. Left to itself the library collects names into a plain object, where
 * `?__proto__=x` or `?constructor=x` finds Object.prototype's members instead of nothing, and the call fails with a
 * 500.
 */
export function parseQuery(url: URL): Record<string, string[]> {
  const query: Record<string, string[]> = Object.create(null);
  for (const pair of url.search.slice(1).split("&")) {
    if (pair === "") continue;
    const separator = pair.indexOf("=");
    const rawName = separator < 0 ? pair : pair.slice(0, separator);
    const name = decodeComponent(rawName, rawName);
    const value = separator < 0 ? "" : decodeComponent(pair.slice(separator + 1), name);
    query[name] ??= [];
    query[name].push(value);
  }
  return query;
}
