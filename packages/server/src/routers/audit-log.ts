import { auditLogPage, auditLogQuery } from "@billing/shared";
import { accountProcedure } from "../procedures.js";
import { router } from "../trpc.js";

export const auditLogRouter = router({
  list: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/audit-log",
        tags: ["audit-log"],
        summary: "List the audit log, newest first",
        description:
          "One entry per call that changed something (REST, tRPC, the console, the CLI, the billing scheduler's runs " +
          "that made invoices; not usage ingestion), with who made it, the procedure, the resource, the request id " +
          "and `Idempotency-Key`, and the names of the fields sent. Filter by `resourceId`, `actor`, `action` (the " +
          "procedure), `from`, `to`. Insert-only; kept AUDIT_RETENTION_DAYS. Paged: " +
          "pass `nextCursor` as `cursor` for the next page.",
      },
    })
    .input(auditLogQuery)
    .output(auditLogPage)
    .query(({ ctx, input }) => ctx.repositories.auditLog.list(ctx.accountId, input)),
});
