/** Sequences remembered at most, the one given least recently forgotten first: a guess is only a first try. */
const MAX_SEQUENCES = 10_000;
/** A guess older than this is not tried: other instances may have taken numbers since, each wrong guess a lost try. */
const FRESH_MS = 60_000;

/**
 * The last number taken in each sequence (an account's invoice places, a document series): the guess for the next
 * insert, which a unique index decides — a wrong guess (another caller took numbers since) fails the insert, and the
 * repository reads the sequence. Only numbers taken are remembered, the highest of them, so a guess is never past
 * the sequence's last number while numbers are never removed. The invoice places keep one for the whole process
 * (invoice-places.ts: concurrent billing loops on one instance then guess each other's places rather than race on
 * them, and a month-end's calls do not each read the sequence first, issue 47); a billing pass keeps one of its own
 * for its document numbers (pass-reads.ts: a series has no gap, so its guess is never older than the pass).
 */
export function lastOfEach() {
  const last = new Map<string, { n: number; at: number }>();
  return {
    get(key: string) {
      const entry = last.get(key);
      return entry && Date.now() - entry.at < FRESH_MS ? entry.n : undefined;
    },
    remember(key: string, n: number) {
      const before = last.get(key)?.n ?? n;
      last.delete(key);
      last.set(key, { n: Math.max(before, n), at: Date.now() });
      if (last.size > MAX_SEQUENCES) last.delete(last.keys().next().value as string);
    },
  };
}

export type LastOfEach = ReturnType<typeof lastOfEach>;
