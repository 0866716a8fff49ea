/**
 * The decoded path parameter of a raw `GET` route served beside the procedures (an export's file, a customer's
 * stream), captured by `pattern`'s first group: undefined for another method or path, or one that does not decode.
 */
export function rawGetParamOf(pattern: RegExp, method: string | undefined, path: string): string | undefined {
  if (method !== "GET") return undefined;
  const match = pattern.exec(path);
  if (!match?.[1]) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}
