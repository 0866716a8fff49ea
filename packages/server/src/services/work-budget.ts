import { setImmediate as nextTurn } from "node:timers/promises";
import { conflict, type DomainError } from "../domain/errors.js";

/**
 * The time budget of one call and its turns on the event loop, as billing runs bound theirs (RUN_LIMITS.timeBudgetMs):
 * `spend` counts work done, yields to the event loop every `unitsPerTurn` units (other accounts' calls run between
 * them), and `check` (which `spend` calls) throws `refusal()` once the budget is spent, so the call stops where it is
 * and answers that; or the reason of `stop` once it aborts (the client has gone: nobody waits for the answer).
 */
export function timeBudget({
  budgetMs,
  unitsPerTurn,
  refusal,
  stop,
  startedAt = Date.now(),
}: {
  budgetMs: number;
  unitsPerTurn: number;
  refusal: () => DomainError;
  stop?: AbortSignal | undefined;
  startedAt?: number;
}) {
  const deadline = startedAt + budgetMs;
  let sinceTurn = 0;
  const check = () => {
    stop?.throwIfAborted();
    if (Date.now() >= deadline) throw refusal();
  };
  return {
    check,
    async spend(units: number) {
      sinceTurn += units;
      if (sinceTurn >= unitsPerTurn) {
        sinceTurn = 0;
        await nextTurn();
      }
      check();
    },
  };
}
export type TimeBudget = ReturnType<typeof timeBudget>;

/**
 * The time budget of a call that cannot be continued (a preview, a simulation): past `limits.timeBudgetMs` it is a
 * 409 saying that the `call` did not finish, why (`tooMuch`), and naming the field `path` of the request.
 */
export function callTimeBudget(
  limits: { timeBudgetMs: number; unitsPerTurn: number },
  stop: AbortSignal | undefined,
  { call, tooMuch, path, verb }: { call: string; tooMuch: string; path: string; verb: string },
): TimeBudget {
  const seconds = limits.timeBudgetMs / 1000;
  return timeBudget({
    budgetMs: limits.timeBudgetMs,
    unitsPerTurn: limits.unitsPerTurn,
    stop,
    refusal: () =>
      conflict(`The ${call} did not finish within its time budget of ${seconds} s (${tooMuch})`, [
        { path, message: `not ${verb} within ${seconds} s` },
      ]),
  });
}
