import type { OpenAPIObject } from "trpc-to-openapi";
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

/**
 * What a raw route's OpenAPI entry takes from its sibling procedure's `GET` (the same resource's): its parameters,
 * tags, security and error responses (all but its 200).
 */
export function siblingGetOf(document: OpenAPIObject, path: string) {
  const { parameters, responses, tags, security } = document.paths?.[path]?.get ?? {};
  const { "200": _, ...errors } = responses ?? {};
  return { parameters, tags, security, errors };
}
