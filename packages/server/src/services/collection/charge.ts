import type { CollectionAttempt, DunningStep, Invoice } from "@billing/shared";
import { billingNow } from "../../billing-clock.js";
import { DomainError } from "../../domain/errors.js";
import { microsPerMinorUnit } from "../../domain/money/currency.js";
import { amountOf, microsOf } from "../../presenters/money.js";
import { attemptIdOf, type CollectionAttemptDoc } from "../../repositories/collection-attempts.js";
import type { CallScope } from "../call-scope.js";
import { readInvoice } from "../invoices/changes.js";
import { recordPayment } from "../invoices/payments.js";
import { publishChange } from "../webhook-events.js";
import { connectedProvider } from "./connections.js";
import { type ChargeOutcome, ProviderUnavailableError } from "./provider.js";

/** The key of attempt `number` of an invoice at the provider: the same for the attempt made again after a crash. */
export const idempotencyKeyOf = (accountId: string, invoiceId: string, number: number) =>
  `billing-${accountId}-invoice-${invoiceId}-attempt-${number}`;

export const presentAttempt = (doc: CollectionAttemptDoc): CollectionAttempt => ({
  number: doc.number,
  status: doc.status,
  ...(doc.providerPaymentId !== undefined && { providerPaymentId: doc.providerPaymentId }),
  ...(doc.failureMessage !== undefined && { failureMessage: doc.failureMessage }),
  createdAt: doc.createdAt.toISOString(),
});

/** Why an invoice cannot be charged now, or what to charge it with. */
export type Chargeability =
  | { chargeable: false; reason: string }
  | {
      chargeable: true;
      invoice: Invoice;
      charge: NonNullable<Awaited<ReturnType<typeof connectedProvider>>>;
      customerRef: string;
      paymentMethod: string;
    };

/**
 * Whether the invoice can be charged now: FINALIZED with something due, a provider connected, its customer linked
 * and with a default payment method there (recorded on the customer), and `autoCollect` on for it (account setting,
 * customer override) unless `asked` (POST …/collect).
 */
export async function chargeabilityOf(call: CallScope, invoiceId: string, asked: boolean): Promise<Chargeability> {
  const { repositories, accountId } = call;
  const current = await readInvoice(call, invoiceId);
  if (!current) return { chargeable: false, reason: "no such invoice" };
  const { invoice } = current;
  if (invoice.status !== "FINALIZED" || invoice.amountDue <= 0)
    return { chargeable: false, reason: `the invoice is ${invoice.status} with ${invoice.amountDue} due` };
  const customer = await repositories.customers.get(accountId, invoice.customerId);
  const account = await repositories.accounts.get(accountId);
  if (!asked && !(customer?.autoCollect ?? account?.autoCollect ?? true))
    return { chargeable: false, reason: "autoCollect is off" };
  const charge = await connectedProvider(call);
  if (!charge) return { chargeable: false, reason: "no payment provider is connected" };
  const customerRef = customer && charge.module.customerRefOf(customer);
  if (!customer || !customerRef) return { chargeable: false, reason: "the customer has no paymentProvider link" };
  const paymentMethod = await charge.module.defaultPaymentMethod(charge.connection, customerRef);
  const status = paymentMethod ? "READY" : "NONE";
  if (customer.paymentMethod !== status)
    await repositories.customers.setPaymentLink(accountId, customer.id, { paymentMethod: status });
  if (!paymentMethod) return { chargeable: false, reason: "the customer has no default payment method" };
  return { chargeable: true, invoice, charge, customerRef, paymentMethod };
}

/** Publishes a step's event for the invoice as it stands. */
export async function publishStep(
  call: CallScope,
  type:
    | "invoice.payment_failed"
    | "invoice.payment_reminder"
    | "invoice.marked_uncollectible"
    | "invoice.payment_disputed",
  invoice: Invoice,
  step: DunningStep,
) {
  await publishChange(call.repositories, call.accountId, call.log, { type, data: { invoice, step } });
}

/**
 * Records the payment a succeeded charge (or Checkout payment) made: `transactionId` the provider's payment id, so that
 * our own result and the provider's notification record it once (the duplicate-transaction rule), marked as the
 * provider's (refundable through it). A payment already recorded is fine.
 */
export async function recordCharged(
  call: CallScope,
  { invoiceId, provider }: { invoiceId: string; provider: string },
  paymentId: string,
  micros: number,
) {
  try {
    await recordPayment(
      call,
      { invoiceId, amount: amountOf(micros), transactionId: paymentId, paymentMethod: "card" },
      new Date(),
      provider,
    );
  } catch (error) {
    if (error instanceof DomainError && error.code === "CONFLICT") {
      call.log.info({ invoiceId, paymentId, reason: error.message }, "charge already recorded or not payable");
      return;
    }
    throw error;
  }
}

/**
 * Makes one charge of the invoice as `step` (CHARGE at finalization or on request, RETRY of the dunning policy):
 * attempt `number` is taken by a unique insert (another instance taking it first: its attempt is the answer), then the
 * provider is called with the attempt's idempotency key. An attempt left PENDING (a crash, a time-out) is made again
 * with the same key, so the provider charges once. Success records the payment; a failure publishes
 * `invoice.payment_failed` once for the step.
 */
export async function attemptCharge(
  call: CallScope,
  ready: Extract<Chargeability, { chargeable: true }>,
  step: Pick<DunningStep, "kind" | "day">,
): Promise<CollectionAttemptDoc> {
  const { repositories, accountId } = call;
  const { invoice, charge, customerRef, paymentMethod } = ready;
  const latest = await repositories.collectionAttempts.latest(accountId, invoice.id);
  // Another call's attempt succeeded since this one read the invoice as due: it is paid, nothing more is charged.
  if (latest?.status === "SUCCEEDED") return latest;
  let attempt: CollectionAttemptDoc;
  if (latest?.status === "PENDING") attempt = latest;
  else {
    const number = (latest?.number ?? 0) + 1;
    const now = new Date();
    attempt = {
      _id: attemptIdOf(invoice.id, number),
      accountId,
      invoiceId: invoice.id,
      number,
      idempotencyKey: idempotencyKeyOf(accountId, invoice.id, number),
      status: "PENDING",
      createdAt: now,
      updatedAt: now,
    };
    if (!(await repositories.collectionAttempts.claim(attempt)))
      return (await repositories.collectionAttempts.get(accountId, invoice.id, number)) ?? attempt;
  }
  const dueMicros = microsOf(invoice.amountDue);
  let outcome: ChargeOutcome;
  try {
    outcome = await charge.module.charge(charge.connection, {
      amountMinor: Math.round(dueMicros / microsPerMinorUnit(invoice.currency)),
      currency: invoice.currency,
      customerRef,
      paymentMethod,
      idempotencyKey: attempt.idempotencyKey,
      metadata: { accountId, invoiceId: invoice.id, attempt: String(attempt.number), step: `${step.kind}:${step.day}` },
    });
  } catch (error) {
    if (!(error instanceof ProviderUnavailableError)) throw error;
    call.log.warn(
      { err: error, invoiceId: invoice.id, attempt: attempt.number },
      "charge outcome unknown: kept pending",
    );
    return attempt;
  }
  const settled = {
    status: outcome.status,
    ...(outcome.paymentId !== undefined && { providerPaymentId: outcome.paymentId }),
    ...(outcome.status === "FAILED" && { failureMessage: outcome.failureMessage }),
  };
  await repositories.collectionAttempts.settle(attempt._id, settled, new Date());
  if (outcome.status === "SUCCEEDED")
    await recordCharged(call, { invoiceId: invoice.id, provider: charge.module.name }, outcome.paymentId, dueMicros);
  if (outcome.status === "FAILED") {
    const at = billingNow(accountId).toISOString();
    await publishStep(call, "invoice.payment_failed", invoice, { ...step, at, failureMessage: outcome.failureMessage });
  }
  return { ...attempt, ...settled };
}
