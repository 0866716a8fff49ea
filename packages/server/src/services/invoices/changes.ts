import type { Invoice } from "@billing/shared";
import { notFound } from "../../domain/errors.js";
import { applyInvoiceChange, type InvoiceChange } from "../../domain/invoices/life.js";
import { assertLegalChange, eventAfter } from "../../domain/invoices/status.js";
import { lateUsageAdjustments } from "../../presenters/invoice-adjustments.js";
import type { LoggedInvoiceChange } from "../../repositories/invoice-changes.js";
import type { StoredInvoice, StoredPricing } from "../../repositories/invoices.js";
import type { CallScope } from "../call-scope.js";
import { publishChange } from "../webhook-events.js";
import { withNumbersClaimed, writeEffects } from "./effects.js";
import {
  gatherReportEntries,
  recordCollection,
  recordMrrUsage,
  recordReceivable,
  recordRevenue,
} from "./report-ledgers.js";

/** A change as its maker decides it: the log gives it its place. */
export type InvoiceChangeRequest =
  LoggedInvoiceChange<StoredPricing> extends infer Logged
    ? Logged extends unknown
      ? Omit<Logged, "n">
      : never
    : never;

/**
 * The invoice with every logged change applied: changes past its stored changeCount (their effect not written: a
 * crash, or a lost concurrent update) have their effects beyond the invoice written (effects.ts) and their move of
 * what is owed and of revenue (report-ledgers.ts), then are applied in order, written, and announced. Publishing is
 * keyed by the change, so the call that made a change and a later one completing it publish one message.
 * `appended`: the change this call has just logged right after `stored`'s last, the one pending that it must apply
 * (later ones are their makers' to apply, and every reader's): then the log is not read.
 */
async function completed(
  call: CallScope,
  stored: StoredInvoice,
  appended?: LoggedInvoiceChange<StoredPricing>,
): Promise<StoredInvoice> {
  const { repositories, accountId } = call;
  const invoiceId = stored.invoice.id;
  const pending = appended
    ? [appended]
    : await repositories.invoiceChanges.after(accountId, invoiceId, stored.life.changeCount);
  if (pending.length === 0) return stored;
  const { life, applied } = await applyPending(call, stored, pending);
  const invoice = await repositories.invoices.writeLife(accountId, stored.invoice, life);
  if (!invoice) throw new Error(`invoice ${invoiceId} vanished while its changes were applied`);
  await announce(call, invoice, applied);
  return { ...stored, invoice, life };
}

/**
 * Of completing an invoice, what comes before the invoice takes its pending changes: each change's effects and its
 * report-ledger entries, in order. The life they lead to, and the changes as they took effect.
 */
async function applyPending(call: CallScope, stored: StoredInvoice, pending: LoggedInvoiceChange<StoredPricing>[]) {
  let { life } = stored;
  const applied: InvoiceChange<StoredPricing>[] = [];
  for (const change of pending) {
    const ready = await writeEffects(call, stored.invoice, change);
    const next = applyInvoiceChange(life, ready);
    await recordReceivable(call, stored.invoice, ready, life, next);
    await recordRevenue(call, stored.invoice, ready, life, next);
    await recordMrrUsage(call, stored.invoice, ready, life, next);
    await recordCollection(call, stored.invoice, ready, next);
    life = next;
    applied.push(ready);
  }
  return { life, applied };
}

/** Of completing an invoice, what comes after its life is written: each applied change announced. */
async function announce(call: CallScope, invoice: Invoice, applied: InvoiceChange<StoredPricing>[]) {
  const { repositories, accountId, log } = call;
  for (const change of applied) {
    const type = eventAfter(change.kind, invoice);
    if (type) await publishChange(repositories, accountId, log, { type, data: invoice });
    // Late usage: its LATE_USAGE lines adjust earlier invoices once it is final (each adjustment's id: once).
    if (change.kind === "FINALIZE")
      for (const data of lateUsageAdjustments(invoice))
        await publishChange(repositories, accountId, log, { type: "invoice.adjusted", data });
  }
}

/** The invoice, its logged changes all applied; undefined when the account has no such invoice. */
export async function readInvoice(call: CallScope, invoiceId: string): Promise<StoredInvoice | undefined> {
  const stored = await call.repositories.invoices.getStored(call.accountId, invoiceId);
  return stored && completed(call, stored);
}

/** Invoices read in a list, those with changes not yet applied completed (one lookup for the page). */
export async function completeInvoices(call: CallScope, page: StoredInvoice[]): Promise<Invoice[]> {
  const behind = await call.repositories.invoiceChanges.withChangesPast(
    page.map(({ invoice, life }) => ({ id: invoice.id, changeCount: life.changeCount })),
  );
  const invoices: Invoice[] = [];
  for (const stored of page)
    invoices.push(behind.has(stored.invoice.id) ? (await completed(call, stored)).invoice : stored.invoice);
  return invoices;
}

/** A change found out of place this many times in a row means a burst of concurrent changes of one invoice. */
const MAX_CHANGE_ATTEMPTS = 50;

/**
 * Makes one change of an invoice, once: `decide` looks at the invoice as it is (all logged changes applied) and
 * returns the change, or throws (a 409 when it is refused). The change must be legal from the invoice's status by the
 * invoice's machine (domain/invoices/status.ts), else it is refused here, a 409 naming the statuses, whatever `decide`
 * checked. It takes the invoice's next place in its log; when another change took it first, the invoice is read again
 * and `decide` asked again. Then the change takes effect and is announced. `decide` returning nothing changes nothing.
 * A finalization, payment or credit note is counted in the money metrics by the insert that logs it, so once however
 * often it is applied.
 */
export async function changeInvoice(
  call: CallScope,
  invoiceId: string,
  decide: Decide,
  /**
   * The invoice as the caller has just stored it (a billing run's new invoice): the first attempt starts from it
   * without reading. Were it out of date, its change would lose its place in the log, and the next attempt reads.
   */
  known?: StoredInvoice,
): Promise<StoredInvoice> {
  for (let attempt = 1; attempt <= MAX_CHANGE_ATTEMPTS; attempt += 1) {
    const current = attempt === 1 && known ? known : await readInvoice(call, invoiceId);
    if (!current) throw notFound("Invoice");
    const decided = await decide(current);
    if (!decided) return current;
    assertLegalChange(current.life.status, decided.kind);
    const change = { ...decided, n: current.life.changeCount + 1 } as LoggedInvoiceChange<StoredPricing>;
    const { id, currency } = current.invoice;
    if (await call.repositories.invoiceChanges.append(call.accountId, id, change, currency))
      return completed(call, current, change);
  }
  throw new Error(`invoice ${invoiceId} changed ${MAX_CHANGE_ATTEMPTS} times while a change was being made`);
}

/** What decides one change of an invoice, from the invoice as it stands (see changeInvoice). */
type Decide = (current: StoredInvoice) => Promise<InvoiceChangeRequest | undefined> | InvoiceChangeRequest | undefined;

/**
 * changeInvoice of several invoices their caller has just stored (a billing batch's), in commands per batch rather
 * than per invoice: the changes logged in one insert (each decided by its own place), the finalized ones' numbers in
 * one (withNumbersClaimed), the report-ledger entries in one insert per ledger, the lives in one write (not read back);
 * other effects and the announcements stay per invoice. The protocol is
 * completed()'s, stage by stage: a crash between stages leaves invoices behind their logs, completed by their next
 * read. An invoice whose change lost its place (another call changed it first) is changed alone, as changeInvoice
 * does. Answers each invoice as it ends, by id.
 */
export async function changeInvoices(
  call: CallScope,
  known: StoredInvoice[],
  decide: Decide,
): Promise<Map<string, StoredInvoice>> {
  const { repositories, accountId } = call;
  const outcome = new Map<string, StoredInvoice>();
  const logged: { stored: StoredInvoice; change: LoggedInvoiceChange<StoredPricing> }[] = [];
  for (const current of known) {
    const decided = await decide(current);
    if (!decided) outcome.set(current.invoice.id, current);
    else {
      assertLegalChange(current.life.status, decided.kind);
      const change = { ...decided, n: current.life.changeCount + 1 } as LoggedInvoiceChange<StoredPricing>;
      logged.push({ stored: current, change });
    }
  }
  const won = await repositories.invoiceChanges.appendMany(
    accountId,
    logged.map(({ stored, change }) => ({ invoiceId: stored.invoice.id, change, currency: stored.invoice.currency })),
  );
  const gathered = gatherReportEntries(repositories, accountId);
  const finalizing = logged.filter(({ stored, change }) => won.has(stored.invoice.id) && change.kind === "FINALIZE");
  const gathering = await withNumbersClaimed(
    { ...call, repositories: gathered.repositories },
    finalizing.map(({ stored }) => stored.invoice.id),
  );
  const lives: { stored: StoredInvoice; life: StoredInvoice["life"]; applied: InvoiceChange<StoredPricing>[] }[] = [];
  for (const { stored, change } of logged) {
    if (!won.has(stored.invoice.id)) continue;
    lives.push({ stored, ...(await applyPending(gathering, stored, [change])) });
  }
  await gathered.write();
  const written = await repositories.invoices.writeLives(
    accountId,
    lives.map(({ stored, life }) => ({ stored, life })),
  );
  for (const { stored, applied } of lives) {
    const now = written.get(stored.invoice.id);
    if (!now) throw new Error(`invoice ${stored.invoice.id} vanished while its changes were applied`);
    await announce(call, now.invoice, applied);
    outcome.set(stored.invoice.id, now);
  }
  for (const { stored } of logged)
    if (!won.has(stored.invoice.id))
      outcome.set(stored.invoice.id, await changeInvoice(call, stored.invoice.id, decide));
  return outcome;
}
