import type { AuditActor } from "@billing/shared";
import type { Context, Meta } from "../context.js";
import { auditSubjectOf } from "../domain/audit.js";
import { t } from "../trpc.js";
import { accountMiddleware } from "./authenticate.js";

/**
 * Whether a call's success is a change for the audit log: a mutation that writes (not a simulation or preview) and
 * is not usage ingestion, whose events and measurements are their own record (docs/decisions.md, "The audit log").
 */
const changes = (type: string, meta: Meta | undefined) =>
  type === "mutation" && !meta?.readOnly && meta?.rateLimit !== "ingest";

/** The names of the ids in a procedure's REST path: `/contracts/{contractId}` → `contractId`. */
const pathIdsOf = (meta: Meta | undefined) =>
  [...(meta?.openapi?.path ?? "").matchAll(/\{(\w+)\}/g)].map(([, name]) => name as string);

/** A call that succeeded, as its middleware sees it. */
interface AuditedCall {
  ctx: Context;
  meta: Meta | undefined;
  path: string;
  input: unknown;
  output: unknown;
}

async function record({ ctx, meta, path, input, output }: AuditedCall, accountId: string, actor: AuditActor) {
  const subject = auditSubjectOf(input, output, pathIdsOf(meta));
  const call = { requestId: ctx.trace.id, idempotencyKey: ctx.idempotencyKey ?? null };
  await ctx.repositories.auditLog.record({ accountId, actor, action: path, ...subject, ...call }, ctx.trace.log);
}

/**
 * A billing call that changed something appends one entry to its account's audit log, once it succeeded. It runs
 * inside `idempotent`: a replayed answer changed nothing and appends nothing.
 */
export const audited = accountMiddleware(async ({ ctx, type, path, meta, getRawInput, next }) => {
  const result = await next();
  if (!result.ok || !changes(type, meta)) return result;
  const actor: AuditActor = { type: "token", tokenId: ctx.holder.tokenId, scope: ctx.holder.scope };
  await record({ ctx, meta, path, input: await getRawInput(), output: result.data }, ctx.accountId, actor);
  return result;
});

/** The account an operator call changed: named by its input, its answer, or (token calls) the token's account. */
async function accountOfOperatorCall(ctx: Context, input: unknown, output: unknown): Promise<string | undefined> {
  const fields = (input ?? {}) as { accountId?: unknown; tokenId?: unknown };
  if (typeof fields.accountId === "string") return fields.accountId;
  const account = (output as { account?: { id?: unknown } } | undefined)?.account;
  if (typeof account?.id === "string") return account.id;
  if (typeof fields.tokenId === "string") return ctx.repositories.tokens.accountOf(fields.tokenId);
  return undefined;
}

/** An operator call (admin API) that changed an account appends one entry to that account's audit log. */
export const auditedOperator = t.middleware(async ({ ctx, type, path, meta, getRawInput, next }) => {
  const result = await next();
  if (!result.ok || !changes(type, meta)) return result;
  const input = await getRawInput();
  const accountId = await accountOfOperatorCall(ctx, input, result.data);
  if (accountId) await record({ ctx, meta, path, input, output: result.data }, accountId, { type: "operator" });
  return result;
});
