import type { TokenScope } from "@billing/shared";
import type { Meta } from "../context.js";
import { forbidden } from "../domain/errors.js";
import { accountMiddleware } from "./authenticate.js";

/** The scope a call needs: `read` for queries and `readOnly` mutations, `finance` for finance work, else `write`. */
export function scopeNeeded(type: string, meta: Meta | undefined): TokenScope {
  if (type !== "mutation" || meta?.readOnly) return "read";
  return meta?.finance ? "finance" : "write";
}

/** Whether a token of `scope` may make a call that needs `needed`: `write` may all, `finance` what needs `read` too. */
export const scopeAllows = (scope: TokenScope, needed: TokenScope) =>
  scope === "write" || scope === needed || (scope === "finance" && needed === "read");

const WHAT_EACH_MAY = {
  read: "it may only read (GET), not make changes",
  finance:
    "it may read, and record payments, void, finalize, issue credit notes and grants and run billing; not change " +
    "configuration",
  write: "",
} satisfies Record<TokenScope, string>;

/**
 * A token calls what its scope allows (docs/decisions.md, "Token scopes"). Decided by procedure type and meta: every
 * mutation (REST POST, PATCH, DELETE) may write, queries only read.
 */
export const requireScope = accountMiddleware(({ ctx, type, meta, next }) => {
  const needed = scopeNeeded(type, meta);
  const { scope } = ctx.holder;
  if (!scopeAllows(scope, needed)) {
    const needs = needed === "finance" ? "the finance or write scope" : "the write scope";
    throw forbidden(`This token has the ${scope} scope: ${WHAT_EACH_MAY[scope]}. This call needs ${needs}`);
  }
  return next();
});
