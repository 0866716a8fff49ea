import { createHash } from "node:crypto";
import { ObjectId } from "mongodb";
import { invoiceDraft, toMicros, type BillingRun, type Contract, type ContractStatus, type InvoiceDraft } from "@billing/shared";
import { floorToCents } from "../domain/billing/amounts.js";
import { composeInvoice, usagePeriod } from "../domain/billing/invoice.js";
import { invoiceCycles, type InvoiceCycle } from "../domain/billing/items.js";
import { ApiError, notFound, zodIssues } from "../errors.js";
import type { Logger } from "../logger.js";
import type { Repositories } from "../repositories/index.js";

/** Contracts in these states are billed; InReview, Inactive, Error and Terminated (deleted) ones are not. */
const BILLABLE: ReadonlySet<ContractStatus> = new Set(["Active", "PendingTermination", "Expired"]);

/**
 * The id of a contract cycle's invoice, derived from the cycle: every step of every run names the same
 * invoice, so the credit debit (keyed by invoice) and the insert (unique id) each happen once. Like any
 * ObjectId it starts with a time, here the cycle's start (contract dates keep it within 32-bit seconds), so
 * invoices list in billing-cycle order.
 */
export function invoiceIdFor(accountId: string, contractId: string, cycleStart: Date): ObjectId {
  // A contract starting in early January 1970 may have a first cycle in December 1969: it sorts first anyway.
  const seconds = Math.max(0, Math.floor(cycleStart.getTime() / 1000));
  const digest = createHash("sha256").update(`${accountId}/${contractId}/${cycleStart.toISOString()}`).digest();
  const id = Buffer.alloc(12);
  id.writeUInt32BE(seconds, 0);
  digest.copy(id, 4, 0, 8);
  return new ObjectId(id);
}

/**
 * An invoice the service can store (amounts within the money rule), or a 409 saying which figure is out of bounds:
 * the request is valid, the stored contract is what cannot be invoiced (several products above the ceiling together).
 */
function withinLimits(draft: InvoiceDraft): InvoiceDraft {
  const checked = invoiceDraft.safeParse(draft);
  if (checked.success) return draft;
  const issues = zodIssues(checked.error);
  throw new ApiError("CONFLICT", `The invoice is outside the service's limits (${issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")})`, issues);
}

/** The customer's due days: read once per contract, whatever the number of its cycles. */
async function dueDaysOf(repositories: Repositories, accountId: string, contract: Contract) {
  return (await repositories.customers.get(accountId, contract.customerId))?.dueDays;
}

type DueDays = Awaited<ReturnType<typeof dueDaysOf>>;

/** What a cycle's invoice needs besides the contract and the due days: each charge's usage, read from the database. */
async function billingInputs(repositories: Repositories, accountId: string, contract: Contract, cycle: InvoiceCycle, dueDays: DueDays) {
  const usageMicros = await Promise.all(
    cycle.charges.map(async ({ item, cycle: itemCycle }) => {
      const { fromDay, toDayExclusive } = usagePeriod(contract, itemCycle);
      const sums = await Promise.all(
        item.meters.map((meter) => repositories.measurements.sumByMeter(accountId, contract.customerId, meter, fromDay, toDayExclusive)),
      );
      return sums.reduce((total, sum) => total + sum, 0n);
    }),
  );
  return { contract, cycle, usageMicros, dueDays };
}

/** The invoice the contract's cycle at `at` would produce, with the credits available now; stored nowhere. */
export async function previewInvoice(repositories: Repositories, accountId: string, contractId: string, at: Date): Promise<InvoiceDraft> {
  const contract = await repositories.contracts.get(accountId, contractId);
  if (!contract) throw notFound("Contract");
  const cycle = invoiceCycles(contract, at).findLast((candidate) => at < candidate.end);
  // 404, as for an invoice that does not exist: the request is valid, there is just no cycle to preview at `at`.
  if (!cycle) {
    throw new ApiError("NOT_FOUND", `The contract has no billing cycle at ${at.toISOString()}`, [{ path: "at", message: "outside the contract's cycles" }]);
  }
  const creditBalanceMicros = await repositories.credits.balanceOf(accountId, contract.customerId);
  const inputs = await billingInputs(repositories, accountId, contract, cycle, await dueDaysOf(repositories, accountId, contract));
  return withinLimits(composeInvoice({ ...inputs, creditBalanceMicros }));
}

/**
 * Makes one cycle's invoice, once. Steps, each safe to repeat after a crash or alongside a concurrent run:
 * (1) skip when the invoice exists or would be empty; (2) pay what credits can, in whole cents, debited once
 * per invoice id; (3) insert the invoice under its derived id, carrying exactly the credits debited. Returns the
 * id of the invoice when this call created it.
 */
async function billCycle(
  repositories: Repositories,
  accountId: string,
  contract: Contract,
  cycle: InvoiceCycle,
  dueDays: DueDays,
): Promise<string | undefined> {
  const invoiceId = invoiceIdFor(accountId, contract.id, cycle.start);
  if (await repositories.invoices.get(accountId, invoiceId.toHexString())) return undefined;
  const inputs = await billingInputs(repositories, accountId, contract, cycle, dueDays);
  const unpaid = withinLimits(composeInvoice({ ...inputs, creditBalanceMicros: 0 }));
  // Nothing to bill this cycle (e.g. a one-time product after its first cycle): no invoice.
  if (unpaid.lineItems.length === 0) return undefined;
  const available = floorToCents(await repositories.credits.balanceOf(accountId, contract.customerId));
  const spent = await repositories.credits.spendOnInvoice(accountId, contract.customerId, {
    invoiceId: invoiceId.toHexString(),
    contractId: contract.id,
    maxMicros: Math.min(available, toMicros(unpaid.revenueBreakdown.total)),
  });
  const draft = spent ? composeInvoice({ ...inputs, creditBalanceMicros: toMicros(-spent.amount) }) : unpaid;
  const { created } = await repositories.invoices.insert(accountId, draft, invoiceId);
  return created ? invoiceId.toHexString() : undefined;
}

/** Every live, billable contract of the account, page by page. */
async function* billableContracts(repositories: Repositories, accountId: string) {
  let cursor: string | undefined;
  do {
    const page = await repositories.contracts.list(accountId, { limit: 1000, cursor });
    yield* page.items.filter((contract) => BILLABLE.has(contract.status));
    cursor = page.nextCursor;
  } while (cursor);
}

/** Generates every invoice of the account due up to `at`; idempotent, and safe to run concurrently. */
export async function runBilling(repositories: Repositories, accountId: string, at: Date, log: Logger): Promise<BillingRun> {
  const run: BillingRun = { at: at.toISOString(), contractsBilled: 0, invoicesCreated: 0, invoiceIds: [], failures: [] };
  for await (const contract of billableContracts(repositories, accountId)) {
    run.contractsBilled += 1;
    try {
      const dueDays = await dueDaysOf(repositories, accountId, contract);
      for (const cycle of invoiceCycles(contract, at)) {
        if (cycle.dueAt > at) continue;
        const created = await billCycle(repositories, accountId, contract, cycle, dueDays);
        if (created) run.invoiceIds.push(created);
      }
    } catch (error) {
      log.error({ err: error, accountId, contractId: contract.id }, "could not bill contract");
      run.failures.push({ contractId: contract.id, message: error instanceof Error ? error.message : String(error) });
    }
  }
  run.invoicesCreated = run.invoiceIds.length;
  return run;
}
