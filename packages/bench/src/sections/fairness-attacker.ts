import { fork } from "node:child_process";
import { setMaxListeners } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

/**
 * What the attacking account keeps in flight: its whole minute's allowance at the default rate limit (600 calls) as
 * 12 tRPC batches of the largest size allowed, and 100 plain GETs besides; each is sent again once answered.
 */
export const ATTACK = { batches: 12, callsPerBatch: 50, plainGets: 100 };

interface AttackerSettings {
  url: string;
  token: string;
  /** Whether a 429 is followed by a wait of its `Retry-After` before that call is sent again (as the SDK does). */
  honoursRetryAfter: boolean;
}

/** The attacker's calls answered with data, refused with 429, and anything else (should be 0). */
export interface AttackCounts {
  served: number;
  refused: number;
  other: number;
}

/**
 * The attacker's loops, in a process of its own: another client, as in the issue. In the victim's process, the
 * attacker's hundreds of answers a second would delay the victim's own answers in the benchmark's event loop, a
 * slowdown of the client measuring, not of the server.
 */
export function startAttacker(settings: AttackerSettings) {
  const child = fork(fileURLToPath(import.meta.url), [JSON.stringify(settings)], { execArgv: ["--import", "tsx"] });
  const counts = new Promise<AttackCounts>((resolve, reject) => {
    child.once("message", (message) => resolve(message as AttackCounts));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the attacker exited (code ${code}) before its counts`)));
  });
  return {
    stop(): Promise<AttackCounts> {
      child.send("stop");
      return counts;
    },
  };
}

async function attack({ url, token, honoursRetryAfter }: AttackerSettings) {
  const headers = { authorization: `Bearer ${token}` };
  const paths = Array.from({ length: ATTACK.callsPerBatch }, () => "meters.list").join(",");
  const input = Object.fromEntries(Array.from({ length: ATTACK.callsPerBatch }, (_, index) => [index, {}]));
  const batchUrl = `${url}/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`;
  const counts: AttackCounts = { served: 0, refused: 0, other: 0 };
  const stop = new AbortController();
  // Every loop waits on it.
  setMaxListeners(ATTACK.batches + ATTACK.plainGets, stop.signal);
  process.once("message", () => stop.abort());
  /** Counts an answer; resolves once the attacker may send again (after `Retry-After` seconds, or when it stops). */
  const answered = async (statuses: number[], retryAfter: string | null) => {
    for (const status of statuses) {
      if (status === 200) counts.served += 1;
      else if (status === 429) counts.refused += 1;
      else counts.other += 1;
    }
    if (honoursRetryAfter && statuses.includes(429))
      await sleep(Number(retryAfter ?? 1) * 1000, undefined, { signal: stop.signal }).catch(() => undefined);
  };
  const batchLoop = async () => {
    while (!stop.signal.aborted) {
      const response = await fetch(batchUrl, { headers });
      const answers = (await response.json()) as { error?: { data: { httpStatus: number } } }[];
      const statuses = answers.map((answer) => (answer.error ? answer.error.data.httpStatus : 200));
      await answered(statuses, response.headers.get("retry-after"));
    }
  };
  const getLoop = async () => {
    while (!stop.signal.aborted) {
      const response = await fetch(`${url}/meters`, { headers });
      await response.arrayBuffer();
      await answered([response.status], response.headers.get("retry-after"));
    }
  };
  await Promise.all([
    ...Array.from({ length: ATTACK.batches }, batchLoop),
    ...Array.from({ length: ATTACK.plainGets }, getLoop),
  ]);
  process.send?.(counts, () => process.disconnect());
}

// Forked by startAttacker: its settings are the one argument.
if (process.send && process.argv[2]) void attack(JSON.parse(process.argv[2]) as AttackerSettings);
