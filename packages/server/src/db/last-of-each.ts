/**
 * The last number one piece of work (a billing pass) took in each sequence (an account's invoice places, a document
 * series): its guess for the next insert, which a unique index decides — a wrong guess (another call took numbers
 * since) fails the insert, and the repository reads the sequence. Kept for one pass only, so a guess is never older
 * than its few seconds.
 */
export function lastOfEach() {
  const last = new Map<string, number>();
  return {
    get: (key: string) => last.get(key),
    remember: (key: string, n: number) => void last.set(key, n),
  };
}

export type LastOfEach = ReturnType<typeof lastOfEach>;
