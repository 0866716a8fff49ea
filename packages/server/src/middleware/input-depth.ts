import { nestsDeeperThan } from "@billing/shared";
import { badRequest } from "../domain/errors.js";

/**
 * Far above any valid body (the deepest, a contract's custom field value, stays under 25), and refused before any
 * code walks the body recursively (trpc-to-openapi re-serializes it; a body nested 5,000 deep overflowed the stack).
 */
const MAX_BODY_DEPTH = 64;

/** 400 for input nested deeper than MAX_BODY_DEPTH, before code that walks it recursively sees it. */
export function refuseDeepNesting(input: unknown) {
  if (nestsDeeperThan(input, MAX_BODY_DEPTH)) {
    throw badRequest(`Request body nests deeper than ${MAX_BODY_DEPTH} levels`);
  }
}
