import type { BenchContext } from "../context.js";
import { progress } from "../progress.js";
import { interleavedRounds, type LatencySummary, ratio, summarize } from "../stats.js";

export interface TransportsResult {
  read: string;
  rest: LatencySummary;
  trpc: LatencySummary;
  /** REST p50 / tRPC p50 of the same read. */
  restToTrpc: number;
}

/** One read, a customer by id, through REST (`GET /customers/{id}`) and through tRPC (`customers.get`), alternately. */
export async function benchTransports(context: BenchContext): Promise<TransportsResult> {
  const { api, customerIds } = context;
  const customerId = (round: number) => customerIds[round % customerIds.length]!;
  const samples = await interleavedRounds(
    {
      rest: (round) => api.call("GET", `/customers/${customerId(round)}`),
      trpc: (round) => api.trpc.customers.get.query({ customerId: customerId(round) }),
    },
    { seconds: context.options.sizes.seriesSeconds * 2, minRounds: 20 },
    (rounds) => progress(`REST and tRPC: round ${rounds}`),
  );
  const rest = summarize(samples.rest);
  const trpc = summarize(samples.trpc);
  return { read: "a customer by id", rest, trpc, restToTrpc: ratio(rest.p50Ms, trpc.p50Ms) };
}
