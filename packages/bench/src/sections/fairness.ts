import { setTimeout as sleep } from "node:timers/promises";
import { type Api, createBenchAccount } from "../api.js";
import type { BenchOptions } from "../options.js";
import { log, progress } from "../progress.js";
import { startServer } from "../server.js";
import { type LatencySummary, now, percentile, ratio, summarize, timed } from "../stats.js";
import { ATTACK, type AttackCounts, OVERSIZED_FLOOD, startAttacker } from "./fairness-attacker.js";

/** The target: the victim's p99 under the attack within this many times its p99 alone. */
export const TARGET_RATIO = 3;
/** Untimed reads of a fresh victim first: its connection, its token's first read, the JIT. */
export const WARM_UP_READS = 20;
/** The attack runs this long before the victim's reads are timed, so that they meet a flood already queued. */
const ATTACK_WARM_UP_MS = 500;
/** The server drains the attacker's last calls before the next phase. */
const SETTLE_MS = 500;

export interface AttackPhase {
  underAttack: LatencySummary;
  /** The attacker's calls answered with data, refused with 429, and anything else (should be 0). */
  counts: AttackCounts;
  callsPerSecond: number;
}

export interface FairnessRound {
  /** Whether this round timed the victim under the attack first (rounds alternate, so drift cancels). */
  attackFirst: boolean;
  alone: LatencySummary;
  attack: AttackPhase;
  /** The victim's p99 under the attack / alone, in this round (lower is better, 1 ideal). */
  p99Ratio: number;
  p50Ratio: number;
}

/** The median of per-round ratios and their spread. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export interface FairnessResult {
  victimRead: string;
  attack: typeof ATTACK;
  oversizedFlood: typeof OVERSIZED_FLOOD;
  readsPerPhase: number;
  rounds: FairnessRound[];
  p99Ratio: Spread;
  p50Ratio: Spread;
  /** Rounds whose p99 ratio is within TARGET_RATIO. */
  withinTarget: number;
  /** One phase of an attacker that ignores `Retry-After`, against the median of the rounds' p99 alone. */
  flood: AttackPhase & { p99Ratio: number; p50Ratio: number };
  /**
   * The oversized-batch flood (OVERSIZED_FLOOD, issue 40, 5): the victim alone, then under the flood, in this run;
   * the bar is the p50 under the flood within TARGET_RATIO times the p50 alone.
   */
  oversized: { alone: LatencySummary; flood: AttackPhase; p50Ratio: number; p99Ratio: number };
}

const spreadOf = (values: number[]): Spread => ({
  median: percentile(values, 50),
  min: Math.min(...values),
  max: Math.max(...values),
});

/** A fresh victim (a whole minute's allowance of its own) after its untimed warm-up reads. */
async function warmVictim(url: string, adminToken: string): Promise<Api> {
  const victim = await createBenchAccount(url, adminToken);
  for (let read = 0; read < WARM_UP_READS; read += 1) await victim.call("GET", "/meters");
  return victim;
}

/** The victim's sequential reads, `reads` of them, stopping early once `goOn` says so; in milliseconds. */
async function victimReads(victim: Api, reads: number, label: string, goOn = () => true): Promise<number[]> {
  const samples: number[] = [];
  while (samples.length < reads) {
    const sample = await timed(() => victim.call("GET", "/meters"));
    if (!goOn()) break;
    samples.push(sample);
    progress(`fairness: ${label}, ${samples.length} reads`);
  }
  return samples;
}

/**
 * The victim's reads while a fresh attacker (in a process of its own) attacks. Honouring `Retry-After`, the attacker
 * is at its full rate limit only until its minute's allowance is spent: reads after that are not kept (the phase
 * ends there), so every sample met the attacker spending.
 */
async function underAttack(
  server: { url: string; adminToken: string },
  reads: number,
  honoursRetryAfter: boolean,
  label: string,
  mode: "allowance" | "oversized" = "allowance",
): Promise<AttackPhase> {
  const victim = await warmVictim(server.url, server.adminToken);
  const attacker = await createBenchAccount(server.url, server.adminToken);
  const started = now();
  const attack = startAttacker({ url: server.url, token: attacker.token, honoursRetryAfter, mode });
  let counts: AttackCounts;
  let samples: number[];
  try {
    await sleep(ATTACK_WARM_UP_MS);
    samples = await victimReads(victim, reads, label, honoursRetryAfter ? attack.spending : undefined);
  } finally {
    counts = await attack.stop();
  }
  const calls = counts.served + counts.refused + counts.other;
  await sleep(SETTLE_MS);
  return { underAttack: summarize(samples), counts, callsPerSecond: calls / ((now() - started) / 1000) };
}

async function alone(server: { url: string; adminToken: string }, reads: number, label: string) {
  const samples = await victimReads(await warmVictim(server.url, server.adminToken), reads, label);
  await sleep(SETTLE_MS);
  return summarize(samples);
}

/**
 * Issue 31's noisy neighbour, on a server of its own with the service's defaults: batch and slot limits, and the
 * rate limit of 600 calls a minute per token (the other sections' server has them out of reach). Rounds alternate the
 * victim alone and under an attacker at its full rate limit, which spends its whole allowance as fast as the server
 * admits it and waits each `Retry-After` it is given, as the SDK does; per round, the victim's p99 under the attack
 * over its p99 alone; the figure is the median over rounds, with its spread. Then one phase of a flood (the attacker
 * ignoring `Retry-After`), which only a proxy in front can stop.
 */
export async function benchFairness(options: BenchOptions): Promise<FairnessResult> {
  const roundCount = options.sizes.fairnessRounds;
  // A victim's warm-up and reads stay within its own minute's allowance (600).
  const reads = options.sizes.fairnessReads;
  const server = await startServer({ RATE_LIMIT_PER_MINUTE: "600" });
  try {
    log(`fairness: server pid ${server.pid} at ${server.url}, ${roundCount} round(s) of ${reads} reads a phase`);
    const rounds: FairnessRound[] = [];
    for (let round = 0; round < roundCount; round += 1) {
      const attackFirst = round % 2 === 0;
      const label = (what: string) => `round ${round + 1}/${roundCount}, victim ${what}`;
      let attack: AttackPhase | undefined;
      if (attackFirst) attack = await underAttack(server, reads, true, label("under attack"));
      const aloneSummary = await alone(server, reads, label("alone"));
      attack ??= await underAttack(server, reads, true, label("under attack"));
      const p99Ratio = ratio(attack.underAttack.p99Ms, aloneSummary.p99Ms);
      const p50Ratio = ratio(attack.underAttack.p50Ms, aloneSummary.p50Ms);
      rounds.push({ attackFirst, alone: aloneSummary, attack, p99Ratio, p50Ratio });
      log(
        `fairness: round ${round + 1}: p99 ${p99Ratio.toFixed(2)}x, p50 ${p50Ratio.toFixed(2)}x ` +
          `(${attack.underAttack.samples} reads under attack)`,
      );
    }
    const flood = await underAttack(server, reads, false, "victim under a flood");
    const oversizedAlone = await alone(server, reads, "victim alone, before the oversized-batch flood");
    const oversizedFlood = await underAttack(server, reads, false, "victim under oversized batches", "oversized");
    const aloneP99 = percentile(
      rounds.map((round) => round.alone.p99Ms),
      50,
    );
    const aloneP50 = percentile(
      rounds.map((round) => round.alone.p50Ms),
      50,
    );
    return {
      victimRead: "`GET /meters` of its own, one at a time",
      attack: ATTACK,
      oversizedFlood: OVERSIZED_FLOOD,
      readsPerPhase: reads,
      rounds,
      p99Ratio: spreadOf(rounds.map((round) => round.p99Ratio)),
      p50Ratio: spreadOf(rounds.map((round) => round.p50Ratio)),
      withinTarget: rounds.filter((round) => round.p99Ratio <= TARGET_RATIO).length,
      flood: {
        ...flood,
        p99Ratio: ratio(flood.underAttack.p99Ms, aloneP99),
        p50Ratio: ratio(flood.underAttack.p50Ms, aloneP50),
      },
      oversized: {
        alone: oversizedAlone,
        flood: oversizedFlood,
        p50Ratio: ratio(oversizedFlood.underAttack.p50Ms, oversizedAlone.p50Ms),
        p99Ratio: ratio(oversizedFlood.underAttack.p99Ms, oversizedAlone.p99Ms),
      },
    };
  } finally {
    await server.stop();
  }
}
