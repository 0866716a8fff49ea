import { z } from "zod";
import { tokenScope } from "./admin.js";
import { pageQuery, resourceRef, timestamp } from "./common.js";

/** Who made a change: a token of the account, the operator (admin API), the billing scheduler or the operator's CLI. */
export const auditActorType = z.enum(["token", "operator", "scheduler", "cli"]);
export type AuditActorType = z.infer<typeof auditActorType>;

export const auditActor = z
  .object({
    type: auditActorType,
    tokenId: z.string().optional().meta({ description: "The token that made the call (`type: token`)." }),
    scope: tokenScope.optional().meta({ description: "That token's scope." }),
  })
  .meta({ id: "AuditActor" });
export type AuditActor = z.infer<typeof auditActor>;

/** A resource an entry is about: its kind (as the API names it, e.g. `contract`) and its id. */
export const auditResource = z.object({ type: z.string(), id: z.string() }).meta({ id: "AuditResource" });
export type AuditResource = z.infer<typeof auditResource>;

export const auditEntry = z
  .object({
    id: z.string(),
    at: timestamp,
    actor: auditActor,
    action: z.string().meta({ description: "The procedure, e.g. `contracts.update` (REST: its path and method)." }),
    resource: auditResource
      .nullable()
      .meta({ description: "What the call made or changed, as its answer names it; null when it names none." }),
    references: z
      .array(auditResource)
      .meta({ description: "The other resources the call named (its path's ids), e.g. the invoice of a payment." }),
    changes: z
      .array(z.string())
      .meta({ description: "The names of the fields the call sent (never their values: no secret is kept)." }),
    requestId: z.string().nullable(),
    idempotencyKey: z.string().nullable(),
  })
  .meta({ id: "AuditEntry" });
export type AuditEntry = z.infer<typeof auditEntry>;

export const auditLogQuery = z
  .object({
    resourceId: resourceRef
      .optional()
      .meta({ description: "Only entries about this resource: the one changed, or one its call named." }),
    actor: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: "Only this actor's entries: a token id, or `operator`, `scheduler` or `cli`." }),
    action: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({
        description:
          "Only entries of this procedure, exactly as `action` names it, e.g. `contracts.update`. Combines with " +
          "`from`, `to` and paging, not with `resourceId` or `actor` (each filter reads its own index).",
        example: "contracts.update",
      }),
    from: timestamp.optional().meta({ description: "Inclusive start: entries at or after this moment." }),
    to: timestamp.optional().meta({ description: "Exclusive end: entries before this moment." }),
    ...pageQuery,
  })
  .refine(({ from, to }) => from === undefined || to === undefined || Date.parse(from) <= Date.parse(to), {
    path: ["from"],
    message: "must not be after to",
  })
  .refine(
    ({ action, actor, resourceId }) => action === undefined || (actor === undefined && resourceId === undefined),
    {
      path: ["action"],
      message: "cannot be combined with actor or resourceId",
    },
  );
export type AuditLogQuery = z.infer<typeof auditLogQuery>;

export const auditLogPage = z
  .object({
    entries: z.array(auditEntry).meta({ description: "Newest first." }),
    hasMore: z.boolean(),
    nextCursor: z.string().optional().meta({ description: "Absent on the last page." }),
  })
  .meta({ id: "AuditLogPage" });
export type AuditLogPage = z.infer<typeof auditLogPage>;
