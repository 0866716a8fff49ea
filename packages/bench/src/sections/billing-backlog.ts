import { createBenchAccount } from "../api.js";
import { formatCount, progress } from "../progress.js";
import { commandsSent, startServer } from "../server.js";
import { ratio } from "../stats.js";

/** What the backlog bills: `contracts` monthly 10.00 contracts started `since`, each billed up to `at`. */
export interface BacklogSize {
  contracts: number;
  since: string;
}

/** Billed at a fixed past moment (a run's `at` must not be in the future), so every run bills the same cycles. */
const BACKLOG_AT = "2026-11-01T00:00:00Z";

/** One `POST /billing-runs` call of the loop. */
export interface BacklogCall {
  invoices: number;
  ms: number;
  /** Database commands the server sent answering it (`billing_db_commands_total{origin="request"}`). */
  commands: number;
}

export interface BillingBacklogResult extends BacklogSize {
  engine: string;
  calls: BacklogCall[];
}

const MONTHLY_FLAT = {
  displayName: "Plan",
  scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
  pricing: { type: "FLAT", price: 10 },
};

/**
 * Issue 47: a backlog's calls keep their yield. Monthly contracts started years ago, billed by one POST /billing-runs
 * loop until hasMore is false, on a server and database of its own (the scheduler off): invoices, time and commands of
 * each call. Each call stops at its 100 invoices or its 3 s budget, so a call whose work grows with the invoices
 * already stored makes fewer than the one before.
 */
export async function benchBillingBacklog({ contracts, since }: BacklogSize): Promise<BillingBacklogResult> {
  const server = await startServer();
  try {
    const api = await createBenchAccount(server.url, server.adminToken);
    for (let index = 0; index < contracts; index += 1) {
      const body = { name: `backlog-${index}`, aliases: [`backlog-${index}`] };
      const { customer } = await api.call<{ customer: { id: string } }>("POST", "/customers", body, 201);
      const contract = { customerId: customer.id, name: "Plan", startDate: since, products: [MONTHLY_FLAT] };
      await api.call("POST", "/contracts", contract, 201);
    }
    const calls: BacklogCall[] = [];
    for (let more = true; more; ) {
      const commandsBefore = await commandsSent(server.url);
      const started = performance.now();
      const { run } = await api.call<{ run: { invoicesCreated: number; hasMore: boolean } }>("POST", "/billing-runs", {
        at: BACKLOG_AT,
      });
      const ms = performance.now() - started;
      calls.push({ invoices: run.invoicesCreated, ms, commands: (await commandsSent(server.url)) - commandsBefore });
      const made = calls.reduce((total, call) => total + call.invoices, 0);
      progress(`billing runs: backlog call ${calls.length}, ${formatCount(made)} invoices`);
      more = run.hasMore;
    }
    return { engine: server.engine, contracts, since, calls };
  } finally {
    await server.stop();
  }
}

export function billingBacklogMarkdown({ engine, contracts, since, calls }: BillingBacklogResult): string[] {
  const made = calls.reduce((total, call) => total + call.invoices, 0);
  const seconds = calls.reduce((total, call) => total + call.ms, 0) / 1000;
  // The last call bills what is left: the yield is compared over the calls before it.
  const full = calls.length > 1 ? calls.slice(0, -1) : calls;
  const yields = full.map(({ invoices }) => invoices);
  const perInvoice = (call: BacklogCall | undefined) =>
    call && call.invoices > 0 ? (call.commands / call.invoices).toFixed(1) : "—";
  return [
    `A backlog (${engine}): ${contracts} monthly 10.00 contracts from ${since.slice(0, 10)}, billed at ` +
      `${BACKLOG_AT.slice(0, 10)} by one POST /billing-runs loop: ${formatCount(made)} invoices in ${calls.length} ` +
      `call${calls.length === 1 ? "" : "s"}, ${seconds.toFixed(1)} s.`,
    `Invoices per call: ${calls.map(({ invoices }) => invoices).join(", ")} (the last: what was left); seconds per ` +
      `call: ${calls.map(({ ms }) => (ms / 1000).toFixed(1)).join(", ")}. The first call's yield is ` +
      `${ratio(Math.max(...yields), Math.min(...yields)).toFixed(2)}× the lowest before the last (issue 47: ≤ 1.5×); ` +
      `commands per invoice ${perInvoice(calls[0])} in the first call, ${perInvoice(full.at(-1))} in the last ` +
      "full one.",
  ];
}
