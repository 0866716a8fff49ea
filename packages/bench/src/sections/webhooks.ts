import type { Api } from "../api.js";
import type { BenchContext } from "../context.js";
import { log, progress } from "../progress.js";
import { interleavedRounds, type LatencySummary, now, ratio, summarize } from "../stats.js";
import { startReceiver } from "../webhook-receiver.js";

export interface WebhooksResult {
  /** `POST /customers` for an account with no webhook endpoint. */
  without: LatencySummary;
  /** The same call for an account with one enabled endpoint taking `customer.created`. */
  with: LatencySummary;
  /** with / without, at p50 and at p99: what recording the message and opening its delivery add to the call. */
  withToWithout: number;
  withToWithoutP99: number;
  /** From the POST's answer to the receiver getting the signed request (first arrival of each customer). */
  delivery: LatencySummary;
  /** Customers created for the account with the endpoint, and how many of them reached the receiver. */
  created: number;
  delivered: number;
  /**
   * The pace of those creations (first answer to last) and of their deliveries (first arrival to last): a worker
   * slower than the calls builds a backlog, and the delivery delay grows with it.
   */
  createdPerSecond: number;
  deliveredPerSecond: number;
  /** Requests whose webhook-id had already arrived: legal (at least once), but each one is work done twice. */
  redeliveries: number;
  /** Customers that arrived under more than one webhook-id: two messages for one change, which must not happen. */
  extraMessages: number;
  /** Requests whose signature did not verify with the endpoint's secret. */
  badSignatures: number;
}

/** How long the created customers may take to arrive, then how long to keep listening for late redeliveries. */
const DELIVERY_TIMEOUT_MS = 120_000;
const LINGER_MS = 3_000;

/** Events per second from the first time to the last. */
function pace(times: number[]) {
  const first = Math.min(...times);
  const last = Math.max(...times);
  return ratio(times.length - 1, (last - first) / 1000);
}

/**
 * What a change pays for webhooks: `POST /customers` for two fresh accounts, alternately, one without a webhook
 * endpoint and one whose enabled endpoint takes `customer.created` and points at a local receiver (the server runs
 * with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true). Then every customer of the second account must reach the receiver once.
 */
export async function benchWebhooks(context: BenchContext, without: Api, listened: Api): Promise<WebhooksResult> {
  const receiver = await startReceiver();
  try {
    const created = await listened.call<{ endpoint: { id: string }; secret: string }>(
      "POST",
      "/webhook-endpoints",
      { url: receiver.url, eventTypes: ["customer.created"] },
      201,
    );
    receiver.setSecret(created.secret);

    const answeredAt = new Map<string, number>();
    const rounds = context.options.sizes.webhookRounds;
    const samples = await interleavedRounds(
      {
        without: (round) => without.call("POST", "/customers", { name: `webhooks-${round}` }, 201),
        with: async (round) => {
          const { customer } = await listened.call<{ customer: { id: string } }>(
            "POST",
            "/customers",
            { name: `webhooks-${round}` },
            201,
          );
          answeredAt.set(customer.id, now());
        },
      },
      { seconds: 0, minRounds: rounds, maxRounds: rounds },
      (round) => progress(`webhooks: round ${round} / ${rounds}, ${receiver.arrivals.size} delivered`),
    );

    const firstArrival = () => {
      const byCustomer = new Map<string, number>();
      for (const { at, dataId: customerId } of receiver.arrivals.values())
        if (customerId !== undefined)
          byCustomer.set(customerId, Math.min(at, byCustomer.get(customerId) ?? Number.POSITIVE_INFINITY));
      return byCustomer;
    };
    const waitUntil = now() + DELIVERY_TIMEOUT_MS;
    for (let arrived = firstArrival(); now() < waitUntil; arrived = firstArrival()) {
      if ([...answeredAt.keys()].every((id) => arrived.has(id))) break;
      progress(`webhooks: ${arrived.size} of ${answeredAt.size} delivered`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await new Promise((resolve) => setTimeout(resolve, LINGER_MS));

    const arrivals = firstArrival();
    const delays = [...answeredAt].flatMap(([id, at]) => (arrivals.has(id) ? [arrivals.get(id)! - at] : []));
    if (delays.length < answeredAt.size) log(`webhooks: ${answeredAt.size - delays.length} customers never arrived`);
    const withSummary = summarize(samples.with);
    const withoutSummary = summarize(samples.without);
    return {
      without: withoutSummary,
      with: withSummary,
      withToWithout: ratio(withSummary.p50Ms, withoutSummary.p50Ms),
      withToWithoutP99: ratio(withSummary.p99Ms, withoutSummary.p99Ms),
      delivery: summarize(delays),
      created: answeredAt.size,
      delivered: delays.length,
      createdPerSecond: pace([...answeredAt.values()]),
      deliveredPerSecond: pace([...arrivals.values()]),
      redeliveries: receiver.counts.redeliveries,
      extraMessages: receiver.arrivals.size - arrivals.size,
      badSignatures: receiver.counts.badSignatures,
    };
  } finally {
    await receiver.close();
  }
}
