import type { AuditSubject } from "./domain/audit.js";
import { createLogger } from "./logger.js";
import type { Repositories } from "./repositories/index.js";

const errorsOnly = createLogger("error", process.stderr);

/** What the operator's CLI changed in an account goes to its audit log, as the admin API's calls do (actor `cli`). */
export function auditCli(
  repositories: Pick<Repositories, "auditLog">,
  accountId: string,
  action: string,
  subject: AuditSubject,
) {
  const entry = {
    accountId,
    actor: { type: "cli" as const },
    action,
    ...subject,
    requestId: null,
    idempotencyKey: null,
  };
  return repositories.auditLog.record(entry, errorsOnly);
}
