import type { Db } from "mongodb";

/** How long `/ready` waits for the database: a probe must answer well within a load balancer's own timeout. */
export const DATABASE_CHECK_TIMEOUT_MS = 2_000;

/** Each check by name: true when it passes. A check that does not apply (no webhook worker in tests) is absent. */
export type ReadinessChecks = Record<string, boolean>;

export interface ReadinessReport {
  status: "ready" | "unavailable";
  checks: Record<string, "ok" | "failing">;
}

/** Ready only when every check passes: `/ready` answers 200 with this report then, 503 otherwise. */
export function readinessOf(checks: ReadinessChecks): ReadinessReport {
  const passed = Object.values(checks).every(Boolean);
  const named = Object.entries(checks).map(([name, ok]) => [name, ok ? "ok" : "failing"] as const);
  return { status: passed ? "ready" : "unavailable", checks: Object.fromEntries(named) };
}

/** A probe may share an unanswered ping this young; an older one may hang on a dead connection, so a new one goes. */
const SHARED_PING_MAX_AGE_MS = 5 * DATABASE_CHECK_TIMEOUT_MS;
const pingsInFlight = new WeakMap<Db, { answered: Promise<boolean>; sentAt: number }>();

/** The database's unanswered ping if young enough, else a new one: a hung database gets one ping per 10 s, not more. */
function pingOf(db: Db): Promise<boolean> {
  const pending = pingsInFlight.get(db);
  if (pending && Date.now() - pending.sentAt < SHARED_PING_MAX_AGE_MS) return pending.answered;
  const ping = {
    answered: db.command({ ping: 1 }, { timeoutMS: DATABASE_CHECK_TIMEOUT_MS }).then(
      () => true,
      () => false,
    ),
    sentAt: Date.now(),
  };
  pingsInFlight.set(db, ping);
  void ping.answered.finally(() => {
    if (pingsInFlight.get(db) === ping) pingsInFlight.delete(db);
  });
  return ping.answered;
}

/**
 * Whether the database answers a ping within DATABASE_CHECK_TIMEOUT_MS. The deadline is our own timer: the driver's
 * `timeoutMS` did not end a ping on a connection that stopped answering (measured through a frozen TCP relay).
 */
export async function databaseAnswers(db: Db): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), DATABASE_CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([pingOf(db), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
