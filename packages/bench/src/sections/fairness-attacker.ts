import { fork } from "node:child_process";
import { setMaxListeners } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

/**
 * What the attacking account keeps in flight: its whole minute's allowance at the default rate limit (600 calls) as
 * 12 tRPC batches of the largest size allowed, and 100 plain GETs besides; each is sent again once answered.
 */
export const ATTACK = { batches: 12, callsPerBatch: 50, plainGets: 100 };

/**
 * The oversized-batch flood (issue 40, 5): one token's loops, each sending a tRPC batch of far more calls than a batch
 * may hold (`meters.list` each, in the request line) as soon as the last one is answered. Each is refused 413 from its
 * request line (http/early-refusal.ts).
 */
export const OVERSIZED_FLOOD = { loops: 2, callsPerBatch: 1_000 };

interface AttackerSettings {
  url: string;
  token: string;
  /**
   * Whether a 429 is followed by a wait of its `Retry-After` before the refused calls are sent again (as the SDK
   * does): the attacker then spends its allowance as fast as the server admits it, and waits for the next window.
   */
  honoursRetryAfter: boolean;
  /** `oversized`: the OVERSIZED_FLOOD instead of the ATTACK (each answer counts as one refusal, 413). */
  mode?: "allowance" | "oversized";
}

/** The attacker's calls answered with data, refused with 429, and anything else (should be 0). */
export interface AttackCounts {
  served: number;
  refused: number;
  other: number;
}

/** What the attacker process tells the benchmark: its allowance is spent (a 429 of the rate limit), or its counts. */
type AttackerMessage = { spent: true } | { counts: AttackCounts };

/**
 * The attacker's loops, in a process of its own: another client, as in the issue. In the victim's process, the
 * attacker's hundreds of answers a second would delay the victim's own answers in the benchmark's event loop, a
 * slowdown of the client measuring, not of the server. `spending()` is true until the attacker's first refusal by
 * the rate limit (its minute's allowance spent): only then is it at its full rate limit.
 */
export function startAttacker(settings: AttackerSettings) {
  const child = fork(fileURLToPath(import.meta.url), [JSON.stringify(settings)], { execArgv: ["--import", "tsx"] });
  let spending = true;
  const counts = new Promise<AttackCounts>((resolve, reject) => {
    child.on("message", (message: AttackerMessage) => {
      if ("spent" in message) spending = false;
      else resolve(message.counts);
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the attacker exited (code ${code}) before its counts`)));
  });
  return {
    spending: () => spending,
    stop(): Promise<AttackCounts> {
      child.send("stop");
      return counts;
    },
  };
}

/** The OVERSIZED_FLOOD's loops until stopped: each batch answered counts as refused when 413, as other otherwise. */
async function oversizedFlood({ url, token }: AttackerSettings) {
  const counts: AttackCounts = { served: 0, refused: 0, other: 0 };
  const stop = new AbortController();
  process.once("message", () => stop.abort());
  const paths = Array.from({ length: OVERSIZED_FLOOD.callsPerBatch }, () => "meters.list").join(",");
  const loop = async () => {
    while (!stop.signal.aborted) {
      const response = await fetch(`${url}/trpc/${paths}?batch=1`, { headers: { authorization: `Bearer ${token}` } });
      await response.arrayBuffer();
      if (response.status === 413) counts.refused += 1;
      else counts.other += 1;
    }
  };
  await Promise.all(Array.from({ length: OVERSIZED_FLOOD.loops }, loop));
  process.send?.({ counts } satisfies AttackerMessage, () => process.disconnect());
}

async function attack({ url, token, honoursRetryAfter }: AttackerSettings) {
  const headers = { authorization: `Bearer ${token}` };
  const batchUrl = (calls: number) => {
    const paths = Array.from({ length: calls }, () => "meters.list").join(",");
    const input = Object.fromEntries(Array.from({ length: calls }, (_, index) => [index, {}]));
    return `${url}/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`;
  };
  const counts: AttackCounts = { served: 0, refused: 0, other: 0 };
  let spent = false;
  const stop = new AbortController();
  // Every loop waits on it.
  setMaxListeners(ATTACK.batches + ATTACK.plainGets, stop.signal);
  process.once("message", () => stop.abort());
  /**
   * Counts an answer, and returns how many of its calls to send again: those refused (429), after their
   * `Retry-After` when the attacker honours it. A `Retry-After` over 1 s is the rate limit's (the slots' is 1 s).
   */
  const answered = async (statuses: number[], retryAfter: string | null) => {
    let refused = 0;
    for (const status of statuses) {
      if (status === 200) counts.served += 1;
      else if (status === 429) refused += 1;
      else counts.other += 1;
    }
    counts.refused += refused;
    const waitSeconds = Number(retryAfter ?? 1);
    if (refused > 0 && waitSeconds > 1 && !spent) {
      spent = true;
      process.send?.({ spent: true } satisfies AttackerMessage);
    }
    if (honoursRetryAfter && refused > 0) {
      await sleep(waitSeconds * 1000, undefined, { signal: stop.signal }).catch(() => undefined);
    }
    return refused;
  };
  const batchLoop = async () => {
    let calls = ATTACK.callsPerBatch;
    while (!stop.signal.aborted) {
      const response = await fetch(batchUrl(calls), { headers });
      const answers = (await response.json()) as { error?: { data: { httpStatus: number } } }[];
      const statuses = answers.map((answer) => (answer.error ? answer.error.data.httpStatus : 200));
      calls = (await answered(statuses, response.headers.get("retry-after"))) || ATTACK.callsPerBatch;
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
  process.send?.({ counts } satisfies AttackerMessage, () => process.disconnect());
}

// Forked by startAttacker: its settings are the one argument.
if (process.send && process.argv[2]) {
  const settings = JSON.parse(process.argv[2]) as AttackerSettings;
  void (settings.mode === "oversized" ? oversizedFlood(settings) : attack(settings));
}
