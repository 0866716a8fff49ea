/** A background pass repeated on a timer, as every instance's workers are (issuer, purge, collection, migrations). */
export interface Repeating {
  /**
   * Runs a pass now and resolves when it has ended (a pass no chore sits out: services/idle-backoff.ts). A pass
   * already in flight is never joined: the new one starts after it, so it sees whatever the caller changed before
   * asking.
   */
  runNow(): Promise<void>;
  /** Starts no more passes, and resolves once the one in flight (if any) has ended. */
  close(): Promise<void>;
}

/**
 * Runs `pass` every `intervalMs`, the next wait starting when a pass ends (passes never overlap on one instance).
 * A failed pass goes to `onFailure` and the next one tries again. `pass` is told when the instance is closing, so a
 * long pass can stop between its units of work, and whether the timer started it (`scheduled`: an idle chore may sit
 * it out) or `runNow` did.
 */
export function repeatEvery(
  intervalMs: number,
  pass: (closing: () => boolean, scheduled: boolean) => Promise<unknown>,
  onFailure: (error: unknown) => void,
): Repeating {
  let closing = false;
  let timer: NodeJS.Timeout | undefined;
  let queue: Promise<void> = Promise.resolve();

  const run = (scheduled: boolean) => {
    queue = queue.then(async () => {
      if (closing) return;
      try {
        await pass(() => closing, scheduled);
      } catch (error) {
        onFailure(error);
      }
    });
    return queue;
  };

  const schedule = () => {
    if (closing) return;
    timer = setTimeout(() => void run(true).then(schedule), intervalMs);
    timer.unref();
  };
  schedule();

  return {
    runNow: () => run(false),
    async close() {
      closing = true;
      clearTimeout(timer);
      await queue;
    },
  };
}
