/** The most timer ticks in a row a chore that keeps finding nothing sits out (8 s between looks at 1 s ticks). */
export const MAX_TICKS_SAT_OUT = 7;

/**
 * Ticks a chore sits out after finding nothing `idleStreak` times in a row: 0, 1, 3, 7, then 7 — so an idle
 * instance's background looks cost a database command every few seconds instead of every second, and a chore that
 * finds work again is looked at every tick from then on.
 */
export const ticksToSitOut = (idleStreak: number) => Math.min(2 ** idleStreak - 1, MAX_TICKS_SAT_OUT);

/**
 * One chore's idle backoff over the ticks of a repeated pass (services/repeat-every.ts). A pass asked for by
 * `runNow` (a test, an instance that just recorded the chore's work) is never sat out.
 */
export function idleBackoff() {
  let streak = 0;
  let sitOut = 0;
  return {
    /** Whether this pass takes the chore: always when not started by the timer, else once its ticks sat out. */
    due(scheduled: boolean) {
      if (!scheduled || sitOut === 0) return true;
      sitOut -= 1;
      return false;
    },
    /** Records the chore's look: `worked` false when it found nothing to do. */
    looked(worked: boolean) {
      streak = worked ? 0 : streak + 1;
      sitOut = ticksToSitOut(streak);
    },
  };
}

/** Whether a chore's step found work, from what it returns: a count, or the list of what it did. */
export const workedOn = (outcome: unknown) =>
  Array.isArray(outcome) ? outcome.length > 0 : typeof outcome === "number" ? outcome > 0 : outcome !== false;
