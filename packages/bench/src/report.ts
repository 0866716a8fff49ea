import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { DocumentsResult } from "./sections/documents.js";
import type { EventsQueryCheckpoint, QueryVariantResult } from "./sections/events-query.js";
import {
  type AttackPhase,
  type FairnessResult,
  type Spread,
  TARGET_RATIO,
  WARM_UP_READS,
} from "./sections/fairness.js";
import type { IngestResult } from "./sections/ingest.js";
import type { MeasurementsResult } from "./sections/measurements.js";
import type { PaginationResult } from "./sections/pagination.js";
import type { RateLimitsResult } from "./sections/rate-limits.js";
import { type ShardPlacementResult, shardPlacementMarkdown } from "./sections/shard-placement.js";
import { type SimulationResult, simulationMarkdown } from "./sections/simulate.js";
import type { TransportsResult } from "./sections/transports.js";
import type { UsagePricingResult } from "./sections/usage-pricing.js";
import type { WebhooksResult } from "./sections/webhooks.js";
import type { LatencySummary } from "./stats.js";
import { ratio } from "./stats.js";

export interface RunInfo {
  command: string;
  startedAt: string;
  durationMinutes: number;
  machine: string;
  node: string;
  database: string;
  loadAverageAtStart: number;
  loadAverageAtEnd: number;
  note: string | undefined;
}

export interface BenchResults {
  run: RunInfo;
  ingest: IngestResult;
  measurements: MeasurementsResult;
  eventQueries: EventsQueryCheckpoint[];
  pagination: PaginationResult;
  transports: TransportsResult;
  rateLimits: RateLimitsResult;
  usagePricing: UsagePricingResult;
  webhooks: WebhooksResult;
  fairness: FairnessResult;
  documents: DocumentsResult;
  simulation: SimulationResult;
  shardPlacement: ShardPlacementResult;
}

/** The machine-readable figures (`--json`): the headline ratios first, every measurement after them. */
export function toJson(results: BenchResults) {
  const queries = results.eventQueries;
  const growth = (pick: (checkpoint: EventsQueryCheckpoint) => LatencySummary) =>
    ratio(pick(queries.at(-1)!).p99Ms, pick(queries[0]!).p99Ms);
  const { memory } = results.ingest;
  return {
    run: results.run,
    ingest: { ratio: results.ingest.ratio, events: results.ingest.events, phases: results.ingest.phases },
    measurements: {
      ratio: results.measurements.levels.find((level) => level.concurrency === 16)?.ratio ?? Number.NaN,
      ...results.measurements,
    },
    eventsQuery: {
      p99Growth: growth((checkpoint) => checkpoint.window.api),
      p99GrowthWithName: growth((checkpoint) => checkpoint.windowAndName.api),
      rawP99Growth: growth((checkpoint) => checkpoint.window.raw),
      rawP99GrowthWithName: growth((checkpoint) => checkpoint.windowAndName.raw),
      fromStoredEvents: queries[0]!.storedEvents,
      toStoredEvents: queries.at(-1)!.storedEvents,
      checkpoints: queries,
    },
    pagination: results.pagination,
    transports: results.transports,
    rateLimits: results.rateLimits,
    usagePricing: results.usagePricing,
    webhooks: results.webhooks,
    fairness: results.fairness,
    documents: results.documents,
    simulation: results.simulation,
    shardPlacement: results.shardPlacement,
    server: {
      peakRssMb: memory.peakRssMb,
      startRssMb: memory.startRssMb,
      afterRssMb: memory.afterRssMb,
      afterIdleSeconds: memory.afterIdleSeconds,
      highWaterRssMb: memory.highWaterRssMb,
      databasePeakRssMb: memory.databasePeakRssMb ?? null,
    },
  };
}

const count = (value: number) => Math.round(value).toLocaleString("en-US");
const ms = (value: number) => (value >= 100 ? count(value) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const times = (value: number) => `${value.toFixed(2)}`;
const latency = ({ p50Ms, p99Ms }: LatencySummary) => `${ms(p50Ms)} / ${ms(p99Ms)}`;
const mb = (value: number | undefined) => (value === undefined ? "n/a" : `${Math.round(value)} MiB`);

/** A Markdown table row. */
const row = (...cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
/** A table's heading and alignment rows; `alignment` has one letter per column: `r` right, `l` left. */
const heading = (alignment: string, ...titles: string[]) => [
  row(...titles),
  `|${[...alignment].map((side) => (side === "r" ? "---:" : "---")).join("|")}|`,
];

function queryRow(stored: number, label: string, result: QueryVariantResult) {
  const { plan } = result;
  const read = plan.docsExamined === null ? "?" : count(plan.docsExamined);
  const examined = plan.index
    ? `index ${plan.index}: ${plan.keysExamined} keys, ${plan.docsExamined} documents examined, ` +
      `${plan.returned} returned`
    : `no index: ${read} documents read (${plan.detail})`;
  const { api, raw } = result;
  return row(count(stored), label, latency(api), latency(raw), times(result.ratio), api.samples, examined);
}

/** The generated part of docs/benchmarks.md. */
export function toMarkdown(results: BenchResults): string {
  const { run, ingest, measurements, eventQueries, pagination, transports, rateLimits, usagePricing, webhooks } =
    results;
  const json = toJson(results);
  const { memory } = ingest;
  const largest = pagination.sizes.at(-1)?.contracts ?? 0;
  const smallest = pagination.sizes[0]?.contracts ?? 1;
  const lines = [
    `## Latest run`,
    `\`${run.command}\`, started ${run.startedAt}, took ${run.durationMinutes.toFixed(1)} minutes.`,
    `Machine: ${run.machine}; Node ${run.node}; database: ${run.database}.`,
    `Load average (1 min): ${run.loadAverageAtStart.toFixed(2)} at the start, ` +
      `${run.loadAverageAtEnd.toFixed(2)} at the end.` +
      (run.note ? ` Also running: ${run.note}` : ""),
    ``,
    `Ratios divide the service's time by a baseline's, measured in the same run, alternating with it: 1.00 means the`,
    `service adds nothing, lower is better. Latencies are p50 / p99 in milliseconds.`,
    ``,
    `### 1. Event ingestion: \`POST /events\` in batches of 1,000 vs the raw driver's insertMany`,
    ...heading("rrrrr", "concurrency", "events", "API events/s", "raw insertMany events/s", "API/raw"),
    ...ingest.phases.map((phase) =>
      row(
        phase.concurrency,
        count(phase.events),
        count(phase.apiEventsPerSecond),
        count(phase.rawEventsPerSecond),
        times(phase.ratio),
      ),
    ),
    row("all", count(ingest.events), "", "", `**${times(ingest.ratio)}**`),
    ``,
    `### 2. Measurements: \`POST /measurements\` (upsert) vs the raw driver's upsert, ` +
      `${count(measurements.storedMeasurements)} stored`,
    ...heading(
      "rrrrrrrr",
      "concurrency",
      "upserts",
      "failed (API / raw)",
      "API/s",
      "raw/s",
      "API p50 / p99",
      "raw p50 / p99",
      "API/raw",
    ),
    ...measurements.levels.map((level) =>
      row(
        level.concurrency,
        count(level.requests),
        `${level.apiFailures} / ${level.rawFailures}`,
        count(level.apiPerSecond),
        count(level.rawPerSecond),
        latency(level.api),
        latency(level.raw),
        level.concurrency === 16 ? `**${times(level.ratio)}**` : times(level.ratio),
      ),
    ),
    ``,
    `### 3. Event queries: \`GET /events\`, a one-hour window (1,000 events), first page of 100`,
    ...heading(
      "rlrrrrl",
      "stored events",
      "query",
      "API p50 / p99",
      "raw p50 / p99",
      "API/raw (p50)",
      "samples",
      "how the engine answered (explain)",
    ),
    ...eventQueries.flatMap((checkpoint) => [
      queryRow(checkpoint.storedEvents, "window", checkpoint.window),
      queryRow(checkpoint.storedEvents, "window + eventName", checkpoint.windowAndName),
    ]),
    ``,
    `p99 growth from ${count(json.eventsQuery.fromStoredEvents)} to ${count(json.eventsQuery.toStoredEvents)} ` +
      `stored events: API **${times(json.eventsQuery.p99Growth)}×** ` +
      `(with eventName ${times(json.eventsQuery.p99GrowthWithName)}×); ` +
      `raw driver ${times(json.eventsQuery.rawP99Growth)}× ` +
      `(with eventName ${times(json.eventsQuery.rawP99GrowthWithName)}×).`,
    ``,
    `### 4. Deep pagination: \`GET /contracts\`, pages of 100`,
    ...heading(
      "rrrrr",
      "contracts",
      "page 1 (API, with total)",
      "raw page query",
      "raw count behind total",
      "count / page 1 (p50)",
    ),
    ...pagination.sizes.map((size) =>
      row(
        count(size.contracts),
        latency(size.apiFirstPage),
        latency(size.rawPageQuery),
        latency(size.rawTotalCount),
        times(ratio(size.rawTotalCount.p50Ms, size.apiFirstPage.p50Ms)),
      ),
    ),
    ``,
    `Page ${count(pagination.deepPage)} at ${count(largest)} contracts: ${latency(pagination.apiDeepPage)}; ` +
      `page ${count(pagination.deepPage)} / page 1 (p50): **${times(pagination.deepToFirst)}**. ` +
      `The count behind \`total\` grew ${times(pagination.totalCountGrowth)}× ` +
      `for ${times(largest / smallest)}× the contracts.`,
    ``,
    `### 5. The same read through REST and tRPC: ${transports.read}`,
    ...heading("rrrr", "REST p50 / p99", "tRPC p50 / p99", "REST/tRPC (p50)", "samples"),
    row(
      latency(transports.rest),
      latency(transports.trpc),
      `**${times(transports.restToTrpc)}**`,
      transports.rest.samples,
    ),
    ``,
    `### 6. Server memory during the ${count(ingest.events)}-event ingestion`,
    ...heading(
      "rrrrr",
      "server RSS at start",
      "peak (sampled every 200 ms)",
      `${memory.afterIdleSeconds} s after`,
      "VmHWM (whole life)",
      "database process peak",
    ),
    row(
      mb(memory.startRssMb),
      `**${mb(memory.peakRssMb)}**`,
      mb(memory.afterRssMb),
      mb(memory.highWaterRssMb),
      mb(memory.databasePeakRssMb),
    ),
    ``,
    ...rateLimitsMarkdown(rateLimits),
    ``,
    `### 8. Billing event-priced usage: \`POST /billing-runs\` vs the raw driver reading the same usage`,
    `${count(usagePricing.customers)} customers × ${count(usagePricing.eventsPerCustomer)} events, ` +
      `a PER_UNIT price on a SUM meter, one cycle each.`,
    ...heading(
      "rrrrrl",
      "invoices",
      "run calls",
      "API ms per invoice",
      "raw ms per customer's usage",
      "API/raw",
      "amounts as computed by hand",
    ),
    row(
      count(usagePricing.invoices),
      usagePricing.runCalls,
      usagePricing.apiMsPerInvoice.toFixed(1),
      usagePricing.rawMsPerCustomer.toFixed(1),
      `**${times(usagePricing.ratio)}**`,
      usagePricing.amountsMatch ? "all match" : "**differ**",
    ),
    ``,
    `### 9. Webhooks: the cost of a change with an endpoint listening`,
    `\`POST /customers\` for an account with no webhook endpoint and for one whose enabled endpoint takes ` +
      `\`customer.created\` (a local receiver answering 200), alternating; delivery from the call's answer to the ` +
      `receiver getting the signed request.`,
    ...heading(
      "rrrrrrrrr",
      "without p50 / p99",
      "with p50 / p99",
      "with/without (p50 / p99)",
      "samples",
      "delivery p50 / p99",
      "created/s, delivered/s",
      "delivered",
      "redelivered (same webhook-id)",
      "second messages / bad signatures",
    ),
    row(
      latency(webhooks.without),
      latency(webhooks.with),
      `**${times(webhooks.withToWithout)}** / ${times(webhooks.withToWithoutP99)}`,
      webhooks.with.samples,
      latency(webhooks.delivery),
      `${webhooks.createdPerSecond.toFixed(1)}, ${webhooks.deliveredPerSecond.toFixed(1)}`,
      `${count(webhooks.delivered)} of ${count(webhooks.created)}`,
      webhooks.redeliveries,
      `${webhooks.extraMessages} / ${webhooks.badSignatures}`,
    ),
    ``,
    ...fairnessMarkdown(results.fairness),
    ``,
    ...documentsMarkdown(results.documents),
    ``,
    ...simulationMarkdown(results.simulation),
    ``,
    `### 16. Shard placement: one account bigger than one machine, placed by the shard-key plan`,
    ...shardPlacementMarkdown(results.shardPlacement),
  ];
  return lines.join("\n");
}

/** Section 11, also printed alone by `pnpm bench --only documents`. */
export function documentsMarkdown(documents: DocumentsResult): string[] {
  return [
    `### 11. Documents: a ${documents.lines}-line invoice as a PDF and as HTML vs its JSON read`,
    `\`GET /invoices/{id}/pdf\` and \`/html\` against \`GET /invoices/{id}\` of the same invoice (same ` +
      `authentication and reads; the difference is rendering), alternating. PDF: ${count(documents.pdfBytes)} bytes.`,
    ...heading("rrrrrr", "JSON p50 / p99", "PDF p50 / p99", "PDF/JSON (p50)", "HTML p50 / p99", "HTML/JSON", "samples"),
    row(
      latency(documents.json),
      latency(documents.pdf),
      `**${times(documents.pdfToJson)}**`,
      latency(documents.html),
      times(documents.htmlToJson),
      documents.pdf.samples,
    ),
  ];
}

/** Section 7, also printed alone by `pnpm bench --only rate-limits`. */
export function rateLimitsMarkdown(rateLimits: RateLimitsResult): string[] {
  const { burst } = rateLimits;
  return [
    `### 7. Rate limiting, per call: the slot's insert when admitted, a refusal by an instance new to the window, ` +
      `against a plain read`,
    ...heading(
      "rrrrrrrrr",
      "admitted p50 / p99",
      "refused (new instance) p50 / p99",
      "read by _id p50 / p99",
      "admitted / read (p50)",
      "refused / read (p50)",
      "admitted / refused (p50)",
      "samples",
      `burst at concurrency ${burst.concurrency}`,
      "burst p50 / p99",
    ),
    row(
      latency(rateLimits.admitted),
      latency(rateLimits.refused),
      latency(rateLimits.read),
      `**${times(rateLimits.admittedToRead)}**`,
      times(rateLimits.refusedToRead),
      times(rateLimits.admittedToRefused),
      rateLimits.admitted.samples,
      `${count(burst.admitted)} of ${count(burst.calls)} admitted, limit ${count(burst.limit)}`,
      latency(burst.latency),
    ),
  ];
}

/** Section 10, also printed alone by `pnpm bench --only fairness`. */
export function fairnessMarkdown(fairness: FairnessResult): string[] {
  const { attack, flood, oversizedFlood: oversized, oversized: overload } = fairness;
  const spread = ({ median, min, max }: Spread) => `${times(median)} (${times(min)}–${times(max)})`;
  const attackerCalls = ({ counts, callsPerSecond }: AttackPhase) =>
    `${count(callsPerSecond)}/s: ${count(counts.served)} served, ${count(counts.refused)} refused (429), ` +
    `${count(counts.other)} other`;
  return [
    `### 10. Fairness: another account's reads while one account floods the server`,
    `The service's defaults: batch and slot limits, rate limit 600 calls a minute per token. The attacker keeps ` +
      `${attack.batches} tRPC batches of ${attack.callsPerBatch} \`meters.list\` (its minute's allowance) and ` +
      `${attack.plainGets} plain \`GET /meters\` in flight, sends the refused calls again after their ` +
      `\`Retry-After\`, and is timed against only until its allowance is spent. The victim reads ` +
      `${fairness.victimRead}, ${fairness.readsPerPhase} reads a phase after ${WARM_UP_READS} untimed, alone and ` +
      `under the attack in alternating order; fresh accounts each phase.`,
    ...heading(
      "rlrrrrrl",
      "round",
      "first",
      "alone p50 / p99",
      "under attack p50 / p99",
      "p99 ratio",
      "p50 ratio",
      "reads under attack",
      "attacker's calls",
    ),
    ...fairness.rounds.map((round, index) =>
      row(
        index + 1,
        round.attackFirst ? "attack" : "alone",
        latency(round.alone),
        latency(round.attack.underAttack),
        times(round.p99Ratio),
        times(round.p50Ratio),
        round.attack.underAttack.samples,
        attackerCalls(round.attack),
      ),
    ),
    "",
    `Median over ${fairness.rounds.length} rounds (min–max): p99 ratio **${spread(fairness.p99Ratio)}**, p50 ratio ` +
      `${spread(fairness.p50Ratio)}; p99 within ${TARGET_RATIO}× in **${fairness.withinTarget} of ` +
      `${fairness.rounds.length}** rounds. A flood (the attacker ignoring \`Retry-After\`): victim p50 / p99 ` +
      `${latency(flood.underAttack)} ms, ${times(flood.p99Ratio)} / ${times(flood.p50Ratio)} times the rounds' ` +
      `median p99 / p50 alone; attacker ${attackerCalls(flood)}.`,
    "",
    `Oversized batches (issue 40, 5): ${oversized.loops} loops of one token's tRPC batches of ` +
      `${count(oversized.callsPerBatch)} \`meters.list\`, each refused 413 from its request line. Victim p50 / p99 ` +
      `alone ${latency(overload.alone)} ms, under the flood ${latency(overload.flood.underAttack)} ms: p50 ratio ` +
      `**${times(overload.p50Ratio)}** (bar: within ${TARGET_RATIO}×), p99 ratio ${times(overload.p99Ratio)}; ` +
      `${count(overload.flood.callsPerSecond)} batches a second, ${count(overload.flood.counts.refused)} refused ` +
      `413, ${count(overload.flood.counts.other)} other.`,
  ];
}

const START = "<!-- bench:results:start (written by `pnpm bench`; edit outside these markers) -->";
const END = "<!-- bench:results:end -->";

/** Replaces the generated part of the document, keeping everything written around it. */
export async function writeMarkdown(path: string, generated: string) {
  const block = `${START}\n${generated}\n${END}`;
  const existing = existsSync(path) ? await readFile(path, "utf8") : `# Benchmarks\n\n`;
  const start = existing.indexOf(START);
  const end = existing.indexOf(END);
  const updated =
    start >= 0 && end > start
      ? existing.slice(0, start) + block + existing.slice(end + END.length)
      : `${existing.trimEnd()}\n\n${block}\n`;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, updated);
}

export async function writeJson(path: string, results: BenchResults) {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(toJson(results), null, 2)}\n`);
}
