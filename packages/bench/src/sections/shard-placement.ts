import { checkPlan, readIndexReport, requestScatters, SHARD_PLAN, type ShardKey } from "@billing/server";
import { formatCount, log } from "../progress.js";

/**
 * Section 16 (issue 48): one account bigger than one machine, placed by the plan's shard keys
 * (packages/server/src/db/shard-plan.ts) on 2, 4 and 8 simulated shards. Nothing is stored: each document is its
 * shard-key value (a hashed field as a 32-bit hash, a ranged id as its creation order), the collection is cut into
 * chunks at MongoDB's default chunk size (128 MB, never inside one key value) from the key distribution, a hashed key
 * starts pre-split into 2 chunks per shard (what `shardCollection` does for an empty collection), and the balancer's
 * end state is each chunk, in key order, on the shard holding the fewest bytes. A hot query's traffic goes to the
 * shard of the key value it carries.
 */

const CHUNK_BYTES = 128 * 2 ** 20;
const SHARD_COUNTS = [2, 4, 8];
/** Within this factor of an even share: the bar. */
const WITHIN = 1.5;
const REQUESTS = 1_000_000;
const ZIPF_S = 0.8;

interface Population {
  collection: string;
  documents: number;
  /** Average stored size of one document, bytes (indexes apart). */
  bytes: number;
  /** The shard-key value of document i (after the `accountId` prefix, which is one value: the one account). */
  keyOf: (index: number) => number;
}

export interface PlacementRow {
  collection: string;
  key: string;
  documents: number;
  chunks: number;
  shards: number;
  /** The largest shard's share of the documents over an even share (1 = even). */
  documentsSkew: number;
}

export interface TrafficRow {
  query: string;
  shards: number;
  /** The largest shard's share of the query's requests over an even share. */
  skew: number;
  /**
   * The same with the callers' activity Zipf-distributed (s = 0.8 over ids in random order: the most active makes
   * 1.3 % of the calls); undefined where each key value is used once (an event's ref).
   */
  zipfSkew: number | undefined;
}

export interface ShardPlacementResult {
  sizes: { events: number; customers: number; invoices: number; contracts: number };
  placement: PlacementRow[];
  traffic: TrafficRow[];
  /** Request-time shapes of the capture that go to more than one shard under the plan (docs/scaling.md). */
  requestScatterShapes: number;
  /** Of those, the ones sent to every shard of the cluster (no prefix of the key): the goal is 0. */
  everyShardShapes: number;
  /** Captured shapes routed to one shard or one key range (every command, request time or background). */
  targetedShapes: number;
  /** Captured shapes in all. */
  capturedShapes: number;
  /** Background shapes that do (sweeps, worker polls: bounded per run). */
  backgroundScatterShapes: number;
  /** Collections still keyed on `accountId` alone until a unique index moves to a claim (named in the plan). */
  pending: string[];
}

/** FNV-1a over the index's decimal text: a uniform 32-bit hash, standing for MongoDB's hashed key value. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let position = 0; position < text.length; position += 1) {
    value ^= text.charCodeAt(position);
    value = Math.imul(value, 0x01000193) >>> 0;
  }
  return value;
}

const keyField = (key: ShardKey) => key[1] ?? key[0]!;

/** Chunk bounds (exclusive upper key values) of a collection: pre-split if hashed, then cut at the chunk size. */
function chunksOf(population: Population, hashed: boolean, shards: number): number[] {
  const keys = new Float64Array(population.documents);
  for (let index = 0; index < keys.length; index += 1) keys[index] = population.keyOf(index);
  keys.sort();
  const perChunk = Math.max(1, Math.floor(CHUNK_BYTES / population.bytes));
  const bounds = new Set<number>();
  if (hashed)
    for (let split = 1; split < shards * 2; split += 1) bounds.add(Math.floor((2 ** 32 * split) / (shards * 2)));
  let start = 0;
  const sorted = [...bounds].sort((a, b) => a - b);
  // Within each pre-split range, cut every perChunk documents at the next change of key value.
  for (const end of [...sorted, Number.POSITIVE_INFINITY]) {
    let count = 0;
    while (start < keys.length && keys[start]! < end) {
      count += 1;
      if (count >= perChunk && start + 1 < keys.length && keys[start + 1]! !== keys[start]! && keys[start + 1]! < end) {
        bounds.add(keys[start + 1]!);
        count = 0;
      }
      start += 1;
    }
  }
  return [...bounds, Number.POSITIVE_INFINITY].sort((a, b) => a - b);
}

/** The index of the chunk holding a key value (binary search over the exclusive upper bounds). */
function chunkOf(bounds: number[], value: number): number {
  let low = 0;
  let high = bounds.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (value < bounds[middle]!) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** The balancer's end state: each chunk, in key order, on the shard with the fewest documents so far. */
function place(population: Population, bounds: number[], shards: number) {
  const perChunk = new Array<number>(bounds.length).fill(0);
  for (let index = 0; index < population.documents; index += 1)
    perChunk[chunkOf(bounds, population.keyOf(index))]! += 1;
  const load = new Array<number>(shards).fill(0);
  const shardOfChunk = perChunk.map((documents) => {
    const lightest = load.indexOf(Math.min(...load));
    load[lightest]! += documents;
    return lightest;
  });
  return { shardOfChunk, load };
}

const skewOf = (load: number[]) => (Math.max(...load) / load.reduce((sum, value) => sum + value, 0)) * load.length;

/** A Zipf(ZIPF_S) sampler over n ids, deterministic: ranks drawn by a linear-congruential stream, in random order. */
function zipfSampler(n: number) {
  const cumulative = new Float64Array(n);
  let sum = 0;
  for (let rank = 0; rank < n; rank += 1) cumulative[rank] = sum += 1 / (rank + 1) ** ZIPF_S;
  let seed = 12345;
  return () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const target = (seed / 2 ** 32) * sum;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    // Activity has nothing to do with creation order: the rank's id is a hash of it.
    return hash(`rank:${low}`) % n;
  };
}

export function benchShardPlacement(scale = 1): ShardPlacementResult {
  const sizes = {
    events: Math.round(10_000_000 * scale),
    customers: Math.round(1_000_000 * scale),
    invoices: Math.round(1_000_000 * scale),
    contracts: Math.round(500_000 * scale),
  };
  const keyOf = (collection: string) => SHARD_PLAN[collection]!.key as ShardKey;
  const hashedOf = (collection: string) => keyField(keyOf(collection))[1] === "hashed";
  const keyValueOf = (collection: string, id: number) => (hashedOf(collection) ? hash(`${collection}:${id}`) : id);
  // Events keyed by ref (hashed), customers by _id (hashed), invoices by contract (ranged: contract creation order,
  // two invoices per contract): the plan's target keys (customers and invoices are pending, see the plan).
  const populations: Population[] = [
    { collection: "events", documents: sizes.events, bytes: 400, keyOf: (index) => keyValueOf("events", index) },
    {
      collection: "customers",
      documents: sizes.customers,
      bytes: 1_000,
      keyOf: (index) => keyValueOf("customers", index),
    },
    {
      collection: "invoices",
      documents: sizes.invoices,
      bytes: 4_000,
      keyOf: (index) => keyValueOf("invoices", index % sizes.contracts),
    },
  ];
  const placement: PlacementRow[] = [];
  const traffic: TrafficRow[] = [];
  for (const shards of SHARD_COUNTS) {
    const shardOf = new Map<string, (value: number) => number>();
    for (const population of populations) {
      const key = keyOf(population.collection);
      const bounds = chunksOf(population, hashedOf(population.collection), shards);
      const { shardOfChunk, load } = place(population, bounds, shards);
      shardOf.set(population.collection, (value) => shardOfChunk[chunkOf(bounds, value)]!);
      placement.push({
        collection: population.collection,
        key: JSON.stringify(Object.fromEntries(key)),
        documents: population.documents,
        chunks: bounds.length,
        shards,
        documentsSkew: skewOf(load),
      });
    }
    // Hot queries, each by the key value it carries: ingestion by ref, a customer's reads by its id, the billing
    // run's reads of a contract's invoices by contract.
    const hot: [string, string, number, boolean][] = [
      ["POST /events (insert by ref)", "events", sizes.events, false],
      ["GET /customers/{id} (by _id)", "customers", sizes.customers, true],
      ["billing: a contract's invoices (by contractId)", "invoices", sizes.contracts, true],
    ];
    for (const [query, collection, population, skewed] of hot) {
      const route = shardOf.get(collection)!;
      const uniform = new Array<number>(shards).fill(0);
      const zipf = new Array<number>(shards).fill(0);
      const sample = zipfSampler(population);
      for (let request = 0; request < REQUESTS; request += 1) {
        uniform[route(keyValueOf(collection, request % population))]! += 1;
        if (skewed) zipf[route(keyValueOf(collection, sample()))]! += 1;
      }
      traffic.push({ query, shards, skew: skewOf(uniform), zipfSkew: skewed ? skewOf(zipf) : undefined });
    }
    log(`16. shard placement: ${shards} shards placed`);
  }
  const { shapes, indexes } = readIndexReport();
  const findings = checkPlan(shapes, indexes);
  return {
    sizes,
    placement,
    traffic,
    requestScatterShapes: requestScatters(findings).length,
    everyShardShapes: requestScatters(findings).filter(({ routing }) => routing === "every").length,
    targetedShapes: shapes.length - findings.scatters.length,
    capturedShapes: shapes.length,
    backgroundScatterShapes: findings.scatters.filter(({ listed }) => listed?.when === "background").length,
    pending: Object.entries(SHARD_PLAN)
      .filter(([, entry]) => entry.pending)
      .map(([name]) => name),
  };
}

const times = (value: number) => `${value.toFixed(2)}×`;

export function shardPlacementMarkdown(result: ShardPlacementResult): string[] {
  const { sizes } = result;
  const lines = [
    `One account of ${formatCount(sizes.events)} events, ${formatCount(sizes.customers)} customers and ` +
      `${formatCount(sizes.invoices)} invoices (${formatCount(sizes.contracts)} contracts), ` +
      "placed by the plan's keys " +
      `(chunks of 128 MB; the largest shard over an even share, ${WITHIN}× at most):`,
    "",
    "| collection | key | documents | shards | chunks | largest shard's documents |",
    "|---|---|---|---|---|---|",
    ...result.placement.map(
      (row) =>
        `| ${row.collection} | \`${row.key}\` | ${formatCount(row.documents)} | ${row.shards} | ${row.chunks} | ` +
        `${times(row.documentsSkew)} |`,
    ),
    "",
    `| hot query | shards | largest shard's requests, callers even | callers Zipf (s = ${ZIPF_S}) |`,
    "|---|---|---|---|",
    ...result.traffic.map(
      (row) =>
        `| ${row.query} | ${row.shards} | ${times(row.skew)} | ` +
        `${row.zipfSkew === undefined ? "—" : times(row.zipfSkew)} |`,
    ),
    "",
    `Captured shapes: ${result.capturedShapes}, of which ${result.targetedShapes} go to one shard or one key range. ` +
      `To more than one shard: ${result.requestScatterShapes} at request time (${result.everyShardShapes} of them to ` +
      "every shard; the others to the shards holding the account's chunks, a bounded page each), " +
      `${result.backgroundScatterShapes} background (docs/scaling.md lists each with why). Still keyed on accountId ` +
      `alone until a unique index moves to a claim: ${result.pending.join(", ") || "none"}.`,
  ];
  return lines;
}
