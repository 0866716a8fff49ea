import type { Account, DunningPolicy } from "@billing/shared";
import { nextStepAt, stepsDue } from "../../domain/collection/dunning.js";
import type { InvoiceCollectionDoc } from "../../repositories/invoice-collections.js";
import type { CallScope } from "../call-scope.js";
import { readInvoice } from "../invoices/changes.js";
import { attemptCharge, chargeabilityOf, publishStep } from "./charge.js";
import { applyFinalAction } from "./final-action.js";
import { finishPendingRefunds, REFUND_RETRY_MS } from "./refunds.js";

/** Collections one call looks at, at most: a run's work is bounded (the next call goes on). */
export const COLLECTIONS_PER_CALL = 50;

/**
 * One look at an invoice being collected, at `at` (billing time): closed when nothing is due any more; else the
 * first charge when none was made (or one left pending is made again), then the dunning steps that have come (each
 * taken by a unique insert: once per invoice and step), and the next look scheduled.
 */
export async function collectInvoice(call: CallScope, collection: InvoiceCollectionDoc, at: Date): Promise<void> {
  const { repositories, accountId } = call;
  // A PROVIDER credit note's refund whose answer was lost: made again (its key) before anything else.
  const refundsLeft = await finishPendingRefunds(call, collection._id, new Date());
  const close = () =>
    repositories.invoiceCollections.reschedule(
      collection._id,
      refundsLeft ? new Date(at.getTime() + REFUND_RETRY_MS) : undefined,
      new Date(),
    );
  const current = await readInvoice(call, collection._id);
  if (current?.invoice.status !== "FINALIZED" || current.invoice.amountDue <= 0) return close();
  const account = (await repositories.accounts.get(accountId)) as Account;
  const policy: DunningPolicy | undefined = account.dunning;
  let ready = await chargeabilityOf(call, collection._id, false);
  const latest = await repositories.collectionAttempts.latest(accountId, collection._id);
  if (ready.chargeable && (!latest || latest.status === "PENDING")) {
    const attempt = await attemptCharge(call, ready, { kind: "CHARGE", day: latest?.number ?? 1 });
    if (attempt.status === "SUCCEEDED") return close();
    ready = await chargeabilityOf(call, collection._id, false);
  }
  if (!policy) return close();
  const taken = await repositories.dunningSteps.latestTaken(accountId, collection._id);
  for (const step of stepsDue(policy, collection.dueDate, at, taken, ready.chargeable)) {
    const won = await repositories.dunningSteps.take({
      accountId,
      invoiceId: collection._id,
      kind: step.kind,
      day: step.day,
      at,
      createdAt: new Date(),
    });
    if (!won) continue;
    const stepAt = { ...step, at: at.toISOString() };
    if (step.kind === "REMINDER") {
      const invoice = (await readInvoice(call, collection._id))?.invoice;
      if (invoice) await publishStep(call, "invoice.payment_reminder", invoice, stepAt);
    } else if (step.kind === "RETRY" && ready.chargeable) {
      const attempt = await attemptCharge(call, ready, step);
      if (attempt.status === "SUCCEEDED") return close();
    } else if (step.kind === "FINAL") {
      await applyFinalAction(call, policy.finalAction, collection._id, stepAt);
    }
  }
  const next = nextStepAt(policy, collection.dueDate, at, ready.chargeable);
  if (!next) return close();
  await repositories.invoiceCollections.reschedule(collection._id, next, new Date());
}

/**
 * The account's collection work due by `at`: each invoice whose next look has come, within one call's bound.
 * Returns whether more may be left. Run by the collection worker on real time and by a test clock's advances.
 */
export async function runCollections(call: CallScope, at: Date): Promise<boolean> {
  const due = await call.repositories.invoiceCollections.dueBy(call.accountId, at, COLLECTIONS_PER_CALL);
  for (const collection of due) {
    try {
      await collectInvoice(call, collection, at);
    } catch (error) {
      call.log.error({ err: error, invoiceId: collection._id }, "collection step failed; it is tried again next run");
    }
  }
  return due.length === COLLECTIONS_PER_CALL;
}

/** Collects one invoice now, if it is being collected (POST …/finalize: the charge at finalization). */
export async function collectNow(call: CallScope, invoiceId: string, at: Date) {
  const collection = await call.repositories.invoiceCollections.get(invoiceId);
  if (!collection?.active || collection.accountId !== call.accountId) return;
  try {
    await collectInvoice(call, collection, at);
  } catch (error) {
    // The finalization stands; the collection run looks again.
    call.log.error({ err: error, invoiceId }, "charge at finalization failed; the collection run tries again");
  }
}
