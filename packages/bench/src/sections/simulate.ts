import { setTimeout as sleep } from "node:timers/promises";
import { MAX_SIMULATION_UNITS } from "@billing/shared";
import { type Api, ApiError, createBenchAccount } from "../api.js";
import type { Sizes } from "../options.js";
import { formatCount, log, progress } from "../progress.js";
import { startServer } from "../server.js";
import { type LatencySummary, now, percentile, ratio, summarize, timed } from "../stats.js";
import { WARM_UP_READS } from "./fairness.js";

/** One size of simulation, timed over rounds. */
export interface SimulationSize {
  cycles: number;
  invoices: number;
  /** The simulation's work as the service counts it (tiers priced + days of usage read). */
  units: number;
  /** Median over rounds. */
  ms: number;
  msPerProductCycle: number;
}

export interface SimulationResult {
  products: number;
  tiers: number;
  events: number;
  sizes: [SimulationSize, SimulationSize];
  /** Per product×cycle at the larger size / at the smaller: 1 is linear, more is worse. */
  linearity: number;
  /** `POST /invoices/preview` of a contract of the same products (one cycle's usage so far), median ms. */
  previewMs: number;
  /** A simulation over MAX_SIMULATION_UNITS: its status and how long its refusal took (checked before any read). */
  overBudget: { status: number; ms: number };
  /** Another account's reads (`GET /meters`, one at a time) alone and while the larger simulation runs in a loop. */
  victim: {
    rounds: { alone: LatencySummary; during: LatencySummary; p50Ratio: number; p99Ratio: number }[];
    p50Ratio: number;
    p99Ratio: number;
    simulations: number;
    /** Simulations of the loop answered 409, past their time budget (a busy machine). */
    pastTimeBudget: number;
  };
}

const PERIOD_START = Date.UTC(2024, 0, 1);
const DAY_MS = 86_400_000;

/** `count` tiers: upTo 100, 200, …, the last open; unit prices falling by a cent a tier. */
const tiersOf = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    upTo: index === count - 1 ? null : (index + 1) * 100,
    unitPrice: (count + 1 - index) / 100,
  }));

const endOf = (cycles: number) => new Date(Date.UTC(2024, cycles, 1)).toISOString();

/** The victim's sequential reads, in milliseconds. */
async function victimReads(victim: Api, reads: number, label: string): Promise<number[]> {
  const samples: number[] = [];
  for (let read = 0; read < reads; read += 1) {
    samples.push(await timed(() => victim.call("GET", "/meters")));
    progress(`simulate: ${label}, ${samples.length} reads`);
  }
  return samples;
}

async function warmVictim(url: string, adminToken: string): Promise<Api> {
  const victim = await createBenchAccount(url, adminToken);
  for (let read = 0; read < WARM_UP_READS; read += 1) await victim.call("GET", "/meters");
  return victim;
}

/**
 * Section 15 (issue 40, 4): `POST /invoices/simulate` of `products` GRADUATED products of `tiers` tiers, each on a
 * meter of its own with an event every `eventEveryDays` days over two years, on a server of its own with the
 * service's defaults. Times it at two numbers of monthly cycles (its cost per product×cycle at both says whether it
 * is linear), a preview of a contract of the same products, a request over the work budget (refused before any
 * read), and another account's reads alone and while the larger simulation runs again and again, in alternating
 * rounds.
 */
export async function benchSimulation(sizes: Sizes): Promise<SimulationResult> {
  const { products: productCount, tiers, cycles, eventEveryDays, rounds, victimReads: reads } = sizes.simulation;
  const server = await startServer();
  try {
    log(`simulate: server pid ${server.pid} at ${server.url}, ${productCount} products of ${tiers} tiers`);
    const api = await createBenchAccount(server.url, server.adminToken);
    const { customer } = await api.call("POST", "/customers", { name: "Simulated", aliases: ["simulated"] }, 201);
    const products = Array.from({ length: productCount }, (_, index) => ({
      displayName: `Product ${index}`,
      catalogProductId: `sim-${index}`,
      pricing: { type: "GRADUATED", tiers: tiersOf(tiers) },
    }));
    for (let index = 0; index < productCount; index += 1) {
      const meter = { key: `sim-${index}`, eventName: `sim.${index}`, aggregation: "SUM", valueProperty: "n" };
      await api.call("POST", "/meters", meter, 201);
    }
    const events = [];
    for (let day = 0; day < 731; day += eventEveryDays) {
      for (let index = 0; index < productCount; index += 1) {
        events.push({
          ref: `sim-${day}-${index}`,
          name: `sim.${index}`,
          customerAlias: "simulated",
          timestamp: new Date(PERIOD_START + day * DAY_MS + 3_600_000).toISOString(),
          // Enough a cycle to reach every tier (the last starts at (tiers - 1) × 100).
          data: { n: String(tiers * 100 * Math.max(1, Math.ceil(eventEveryDays / 30))) },
        });
      }
    }
    for (let start = 0; start < events.length; start += 1000) {
      await api.call("POST", "/events", { events: events.slice(start, start + 1000) });
      progress(
        `simulate: ${formatCount(Math.min(start + 1000, events.length))} / ${formatCount(events.length)} events`,
      );
    }
    const body = (months: number, terms: Record<string, unknown> = { products }) => ({
      customerId: customer.id,
      startDate: new Date(PERIOD_START).toISOString(),
      endDate: endOf(months),
      ...terms,
    });
    const simulate = (months: number) => api.call("POST", "/invoices/simulate", body(months));
    // Untimed: the server's first simulation, while the scheduler still compacts the rollups just ingested.
    await simulate(cycles[1]);

    const timedSizes = [] as unknown as [SimulationSize, SimulationSize];
    for (const months of cycles) {
      const samples: number[] = [];
      let invoices = 0;
      for (let round = 0; round < rounds; round += 1) {
        const started = now();
        invoices = (await simulate(months)).invoices.length;
        samples.push(now() - started);
        progress(`simulate: ${months} cycles, round ${round + 1} / ${rounds}`);
      }
      const ms = percentile(samples, 50);
      // What checkWork counts: every cycle prices every product's tiers; every meter is read over the period's days.
      const days = (Date.parse(endOf(months)) - PERIOD_START) / DAY_MS;
      timedSizes.push({
        cycles: months,
        invoices,
        units: invoices * productCount * tiers + productCount * days,
        ms,
        msPerProductCycle: ms / (productCount * invoices),
      });
      log(`simulate: ${months} cycles in ${formatCount(ms)} ms (${invoices} invoices)`);
    }

    const contract = await api.call(
      "POST",
      "/contracts",
      { customerId: customer.id, name: "Priced", startDate: new Date(PERIOD_START).toISOString(), products },
      201,
    );
    const previewSamples: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const at = new Date(PERIOD_START + 45 * DAY_MS).toISOString();
      previewSamples.push(
        await timed(() => api.call("POST", "/invoices/preview", { contractId: contract.contract.id, at })),
      );
    }

    // Two groups of 100 metered products over 24 months: 200 meters × 731 days of usage, past the budget whatever
    // the sizes.
    const groups = [0, 1].map((group) => ({
      displayName: `Group ${group}`,
      products: Array.from({ length: 100 }, (_, index) => ({
        displayName: `Grouped ${index}`,
        catalogProductId: `over-${group}-${index}`,
        pricing: { type: "FLAT", price: 1 },
      })),
    }));
    const overStarted = now();
    let overStatus = 200;
    try {
      await api.call("POST", "/invoices/simulate", body(24, { productGroups: groups }));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      overStatus = error.status;
    }
    const overBudget = { status: overStatus, ms: now() - overStarted };

    const largest = cycles[1];
    const victimRounds: SimulationResult["victim"]["rounds"] = [];
    let simulations = 0;
    let pastTimeBudget = 0;
    for (let round = 0; round < rounds; round += 1) {
      const runDuring = async () => {
        const victim = await warmVictim(server.url, server.adminToken);
        let going = true;
        const loop = (async () => {
          while (going) {
            try {
              await simulate(largest);
              simulations += 1;
            } catch (error) {
              // Past its time budget on a machine busy with other work: the answer is a 409, and the loop goes on.
              if (!(error instanceof ApiError) || error.status !== 409) throw error;
              pastTimeBudget += 1;
            }
          }
        })();
        await sleep(100);
        const samples = await victimReads(victim, reads, `round ${round + 1}, victim during simulations`);
        going = false;
        await loop;
        return summarize(samples);
      };
      const runAlone = async () =>
        summarize(
          await victimReads(await warmVictim(server.url, server.adminToken), reads, `round ${round + 1}, alone`),
        );
      // Alternate which phase comes first, so that drift cancels.
      const [alone, during] =
        round % 2 === 0
          ? await (async () => {
              const first = await runAlone();
              return [first, await runDuring()] as const;
            })()
          : await (async () => {
              const first = await runDuring();
              return [await runAlone(), first] as const;
            })();
      victimRounds.push({
        alone,
        during,
        p50Ratio: ratio(during.p50Ms, alone.p50Ms),
        p99Ratio: ratio(during.p99Ms, alone.p99Ms),
      });
    }
    const [small, large] = timedSizes;
    return {
      products: productCount,
      tiers,
      events: events.length,
      sizes: timedSizes,
      linearity: ratio(large.msPerProductCycle, small.msPerProductCycle),
      previewMs: percentile(previewSamples, 50),
      overBudget,
      victim: {
        rounds: victimRounds,
        p50Ratio: percentile(
          victimRounds.map((round) => round.p50Ratio),
          50,
        ),
        p99Ratio: percentile(
          victimRounds.map((round) => round.p99Ratio),
          50,
        ),
        simulations,
        pastTimeBudget,
      },
    };
  } finally {
    await server.stop();
  }
}

const count = (value: number) => Math.round(value).toLocaleString("en-US");
const ms = (value: number) => (value >= 100 ? count(value) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const latency = ({ p50Ms, p99Ms }: LatencySummary) => `${ms(p50Ms)} / ${ms(p99Ms)}`;

/** Section 15's report. */
export function simulationMarkdown(result: SimulationResult): string[] {
  const { victim } = result;
  return [
    `### 15. Simulation: \`POST /invoices/simulate\` of ${result.products} GRADUATED products of ${result.tiers} ` +
      `tiers, and another account's reads meanwhile`,
    `Each product on a meter of its own, ${count(result.events)} events over two years; medians of the rounds. ` +
      `Work budget: ${count(MAX_SIMULATION_UNITS)} units.`,
    "| cycles | invoices | units of work | ms | ms per product×cycle |",
    "|---:|---:|---:|---:|---:|",
    ...result.sizes.map(
      (size) =>
        `| ${size.cycles} | ${size.invoices} | ${count(size.units)} | ${count(size.ms)} | ` +
        `${size.msPerProductCycle.toFixed(2)} |`,
    ),
    "",
    `Per product×cycle, ${result.sizes[1].cycles} cycles / ${result.sizes[0].cycles}: ` +
      `**${result.linearity.toFixed(2)}** (1: linear). A preview of a contract of the same products: ` +
      `${count(result.previewMs)} ms. Over the budget ` +
      `(two groups of 100 metered products over 24 cycles): ${result.overBudget.status} in ` +
      `${ms(result.overBudget.ms)} ms.`,
    "",
    "| round | victim alone p50 / p99 | during simulations p50 / p99 | p50 ratio | p99 ratio |",
    "|---:|---:|---:|---:|---:|",
    ...victim.rounds.map(
      (round, index) =>
        `| ${index + 1} | ${latency(round.alone)} | ${latency(round.during)} | ${round.p50Ratio.toFixed(2)} | ` +
        `${round.p99Ratio.toFixed(2)} |`,
    ),
    "",
    `Victim p50 during the simulations / alone, median over rounds: **${victim.p50Ratio.toFixed(2)}** (p99 ` +
      `${victim.p99Ratio.toFixed(2)}); ${victim.simulations} simulations of ${result.sizes[1].cycles} cycles ran ` +
      `meanwhile, ${victim.pastTimeBudget} more stopped by their time budget (409).`,
  ];
}
