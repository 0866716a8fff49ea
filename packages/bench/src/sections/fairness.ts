import { setTimeout as sleep } from "node:timers/promises";
import { type Api, createBenchAccount } from "../api.js";
import type { BenchOptions } from "../options.js";
import { log, progress } from "../progress.js";
import { startServer } from "../server.js";
import { type LatencySummary, now, ratio, summarize, timed } from "../stats.js";
import { ATTACK, type AttackCounts, startAttacker } from "./fairness-attacker.js";

const MIN_SAMPLES = 200;
/** The attack runs this long before the victim's reads are timed, so that they meet a flood already queued. */
const WARM_UP_MS = 1000;

export interface AttackResult {
  /** Whether the attacker waited `Retry-After` after a 429 before sending that call again (as the SDK does). */
  honoursRetryAfter: boolean;
  /** Whether the server enforced the default rate limit (600 calls a minute per token), else one out of reach. */
  rateLimited: boolean;
  underAttack: LatencySummary;
  /** The victim's p99 under this attack / alone, in the same run (lower is better, 1 ideal). */
  p99Ratio: number;
  /** The same of its p50: steadier than the p99 on a machine shared with other work. */
  p50Ratio: number;
  /** The attacker's calls answered with data, refused with 429, and anything else (should be 0). */
  served: number;
  refused: number;
  other: number;
  callsPerSecond: number;
}

export interface FairnessResult {
  victimRead: string;
  attack: typeof ATTACK;
  /** The victim alone on the server with rate limits out of reach, and on the one with the default rate limit. */
  alone: LatencySummary;
  aloneRateLimited: LatencySummary;
  attacks: AttackResult[];
}

/**
 * The victim's sequential reads for `seconds` (at least MIN_SAMPLES of them, at most `maxSamples`: a victim under the
 * default rate limit stays within its own minute's allowance), in milliseconds.
 */
async function victimReads(victim: Api, seconds: number, label: string, maxSamples: number): Promise<number[]> {
  const samples: number[] = [];
  const started = now();
  while (samples.length < MIN_SAMPLES || (now() - started < seconds * 1000 && samples.length < maxSamples)) {
    samples.push(await timed(() => victim.call("GET", "/meters")));
    progress(`fairness: victim ${label}, ${samples.length} reads`);
  }
  return samples;
}

/** The victim's reads while `attacker` floods the server from a thread of its own; its calls counted by answer. */
async function underAttack(
  url: string,
  { seconds, maxSamples }: { seconds: number; maxSamples: number },
  victim: Api,
  attacker: Api,
  honoursRetryAfter: boolean,
) {
  const started = now();
  const attack = startAttacker({ url, token: attacker.token, honoursRetryAfter });
  let counts: AttackCounts;
  let samples: number[];
  try {
    await sleep(WARM_UP_MS);
    samples = await victimReads(victim, seconds, honoursRetryAfter ? "under attack" : "under a flood", maxSamples);
  } finally {
    counts = await attack.stop();
  }
  const calls = counts.served + counts.refused + counts.other;
  return { samples, ...counts, callsPerSecond: calls / ((now() - started) / 1000) };
}

/** The victim's reads alone, then under each attack, on a server of its own started with `settings`. */
async function attacksOn(options: BenchOptions, settings: NodeJS.ProcessEnv, rateLimited: boolean) {
  const server = await startServer(settings);
  try {
    log(`fairness: server pid ${server.pid} at ${server.url}, rate limit ${rateLimited ? "default" : "out of reach"}`);
    const seconds = options.sizes.seriesSeconds * 2;
    const maxSamples = rateLimited ? 500 : Number.POSITIVE_INFINITY;
    // A fresh victim and attacker per measure: each starts with its whole minute's allowance.
    const account = () => createBenchAccount(server.url, server.adminToken);
    const alone = summarize(await victimReads(await account(), seconds, "alone", maxSamples));
    const attacks: AttackResult[] = [];
    for (const honoursRetryAfter of [true, false]) {
      const { samples, ...attack } = await underAttack(
        server.url,
        { seconds, maxSamples },
        await account(),
        await account(),
        honoursRetryAfter,
      );
      const summary = summarize(samples);
      const p99Ratio = ratio(summary.p99Ms, alone.p99Ms);
      const p50Ratio = ratio(summary.p50Ms, alone.p50Ms);
      attacks.push({ honoursRetryAfter, rateLimited, underAttack: summary, p99Ratio, p50Ratio, ...attack });
    }
    return { alone, attacks };
  } finally {
    await server.stop();
  }
}

/**
 * Issue 31's noisy neighbour, with the service's default batch and slot limits (the other sections' server has them
 * out of reach). First as the issue states it, on a server enforcing the default rate limit (600 calls a minute per
 * token): the attacker spends its whole allowance at once and sends again after `Retry-After`, as the SDK does (the
 * figure: the victim's p99 then over its p99 alone on that server), then ignores `Retry-After` (a flood of refusals,
 * which only a proxy in front can stop). Then the same two with rate limits out of reach, as everywhere else in the
 * benchmark.
 */
export async function benchFairness(options: BenchOptions): Promise<FairnessResult> {
  const limited = await attacksOn(options, { RATE_LIMIT_PER_MINUTE: "600" }, true);
  const unlimited = await attacksOn(options, {}, false);
  return {
    victimRead: "`GET /meters` of its own, one at a time",
    attack: ATTACK,
    alone: unlimited.alone,
    aloneRateLimited: limited.alone,
    attacks: [...limited.attacks, ...unlimited.attacks],
  };
}
