import { ObjectId } from "mongodb";
import { heldByAnother } from "../../domain/billing/claims.js";
import { plannedInvoiceByKey } from "../../domain/billing/items.js";
import { conflict } from "../../domain/errors.js";
import { type StoredPricing, storedPricingOf } from "../../presenters/stored-invoices.js";
import type { StoredInvoice } from "../../repositories/invoices.js";
import type { CallScope } from "../call-scope.js";
import { readContractIncludingDeleted } from "../contract-reads.js";
import { contractChanging } from "../contracts/billing-guard.js";
import { returnInvoiceCredits } from "../credit-ledger.js";
import { readInvoice } from "../invoices/changes.js";
import { finalizeInvoice } from "../invoices/finalize.js";
import { repriceInvoice } from "../invoices/reprice.js";
import { paymentTermsOf } from "./invoice-basis.js";
import type { BillingPass } from "./pass.js";
import { priceCycle } from "./price-cycle.js";

/** A draft's contract and planned invoice, when the contract (deleted or not) still has that cycle. */
async function cycleOf({ repositories, accountId }: CallScope, draft: StoredInvoice) {
  const contract = await readContractIncludingDeleted(repositories, accountId, draft.invoice.contractId);
  const planned =
    contract && plannedInvoiceByKey(contract, draft.cycleKey, new Date(draft.invoice.billingCycle.startTime));
  return contract && planned ? { contract, planned } : undefined;
}

/**
 * A draft's final lines and totals: priced from the usage stored now, then paid from credits in burn order (debited
 * once per invoice: a debit made before, by a finalization that stopped, is the one used). The debit is noted as a
 * pending payment first, closed once the invoice is finalized or voided (settleFinalizationDebit), so that a debit
 * whose finalization stopped is found by the next run. A draft whose cycle is gone keeps the lines it has.
 */
async function finalPricing(call: CallScope, draft: StoredInvoice, at: Date): Promise<StoredPricing> {
  const cycle = await cycleOf(call, draft);
  if (!cycle) return draft.life.priced;
  const { repositories, accountId, log } = call;
  const priced = await priceCycle(repositories, accountId, cycle.contract, cycle.planned, {
    paymentTerms: await paymentTermsOf(repositories, accountId, cycle.contract),
    issuedAt: at,
    lateUsage: { invoiceId: draft.invoice.id, at, log },
    credits: {
      debit: {
        log,
        invoiceId: draft.invoice.id,
        spend: true,
        beforeDebit: () =>
          repositories.billingRuns.openPayment({
            _id: new ObjectId(draft.invoice.id),
            accountId,
            contractId: draft.invoice.contractId,
            cycleKey: draft.cycleKey,
            cycleStart: new Date(draft.invoice.billingCycle.startTime),
          }),
      },
    },
  });
  return priced.lineItems.length > 0 ? storedPricingOf(priced) : draft.life.priced;
}

/**
 * Closes the pending payment of a finalization's debit once its invoice is decided: kept when FINALIZED, given back
 * to the grants when a void won the race (it may have been debited after the void gave the credits back). A draft
 * keeps it open: its next finalization uses that debit.
 */
export async function settleFinalizationDebit(call: CallScope, { invoice, life }: StoredInvoice): Promise<void> {
  if (life.status === "DRAFT") return;
  if (life.status === "VOIDED") await returnInvoiceCredits(call, invoice.customerId, invoice.id);
  await call.repositories.billingRuns.closePayment(new ObjectId(invoice.id));
}

/**
 * Finalizes a draft as the billing engine does (re-priced, credits applied, numbered), issued at `at`: for POST
 * /invoices/{invoiceId}/finalize (now; 409 unless a draft) and for runs (the run's `at`; `ifDraft`: one finalized
 * meanwhile is left). Its debit is settled whether it wins or loses (to a void, or a concurrent finalization).
 * While a change of its contract is under way (it may log new terms for the draft's days), it stays a draft: a run
 * leaves it to the next, a request is 409. The check comes before the contract is read for pricing: a change
 * announced after it sees the draft and is refused.
 */
export async function finalizeDraft(
  call: CallScope,
  invoiceId: string,
  { at, ifDraft = false }: { at: Date; ifDraft?: boolean },
): Promise<StoredInvoice> {
  const draft = await readInvoice(call, invoiceId);
  if (draft?.life.status === "DRAFT" && (await contractChanging(call, draft.invoice.contractId))) {
    if (ifDraft) return draft;
    throw conflict("A change of the invoice's contract is under way: finalize the invoice again in a moment");
  }
  try {
    const finalized = await finalizeInvoice(call, invoiceId, {
      at,
      ifDraft,
      price: (draft) => finalPricing(call, draft, at),
    });
    await settleFinalizationDebit(call, finalized);
    return finalized;
  } catch (error) {
    const current = await readInvoice(call, invoiceId);
    if (current) await settleFinalizationDebit(call, current);
    throw error;
  }
}

/**
 * Re-prices a draft from the usage stored now (late events count), as priced by a run at `at` (see repriceInvoice:
 * a draft no more by then is left as it is). A draft whose cycle is gone keeps the lines it has.
 */
const repriceDraft = (call: CallScope, stored: StoredInvoice, at: Date) =>
  repriceInvoice(call, stored.invoice.id, at, async (draft) => {
    const cycle = await cycleOf(call, draft);
    if (!cycle) return undefined;
    const { repositories, accountId } = call;
    const priced = await priceCycle(repositories, accountId, cycle.contract, cycle.planned, {
      paymentTerms: await paymentTermsOf(repositories, accountId, cycle.contract),
      issuedAt: at,
      lateUsage: { invoiceId: draft.invoice.id, at, log: call.log },
      credits: "none",
    });
    return priced.lineItems.length > 0 ? priced : undefined;
  });

/**
 * The drafts of contracts no other live call holds. A call holding a contract finalizes the invoices it has just
 * stored (as drafts, for a moment) itself: a concurrent call that finalized them too did all that work again only to
 * lose each change's race (two loops over one month-end: a tenth of the invoices). Left here, a held contract is still
 * due, so this pass waits for its holder or says hasMore (run.ts); a holder that died leaves it when its lease ends.
 */
async function draftsNotHeld(pass: BillingPass, drafts: StoredInvoice[]) {
  if (drafts.length === 0) return drafts;
  const standing = await pass.repositories.billingClaims.standing(drafts.map(({ invoice }) => invoice.contractId));
  const now = new Date();
  return drafts.filter(({ invoice }) => !heldByAnother(standing.get(invoice.contractId), { holder: pass.holder, now }));
}

/** Drafts anyToSettle looks at (their contract and status only): four calls' batches of 100 in flight. */
const MAX_DRAFTS_CHECKED = 400;

/**
 * Whether the account has drafts or invoices to number a run settles: not when all there are (up to four batches)
 * are drafts of contracts other live calls hold — invoices they have just stored and are finalizing (draftsNotHeld
 * would leave each), which two loops over one month-end met in most calls, each then reading the drafts to finalize,
 * to re-price and the invoices to number for nothing (four loops: two or three batches in flight at a time). The
 * account's claims (one read, kept for the call's first batch) say which contracts are held. They are read before the
 * drafts: read after, they missed the claims of holders that finalized their drafts and ended in between, whose drafts
 * then looked left (FerretDB's read of the drafts takes a second beside four loops), and the call read the drafts to
 * settle, their claims, the drafts to re-price and the invoices to number for nothing.
 */
export async function anyToSettle(pass: BillingPass): Promise<boolean> {
  const standing = await pass.accountClaims({ keep: true });
  const found = await pass.repositories.invoices.someToSettle(pass.accountId, MAX_DRAFTS_CHECKED + 1);
  if (found.length === 0) return false;
  if (found.length > MAX_DRAFTS_CHECKED || found.some(({ draft }) => !draft)) return true;
  if (!standing) return true;
  const now = new Date();
  return found.some(({ contractId }) => !heldByAnother(standing.get(contractId), { holder: pass.holder, now }));
}

/**
 * A run's drafts: those whose draft period has passed by its `at` are finalized, the others re-priced, each as many
 * as one call makes invoices (the rest: `hasMore`), those of contracts another call holds left to it. A draft
 * re-priced carries the run's `at`, so the next call of the same run goes on with the others; a run at an earlier
 * `at` leaves drafts priced later alone.
 */
export async function settleDrafts(pass: BillingPass): Promise<void> {
  const { repositories, accountId, at, limits, log } = pass;
  const call = { repositories, accountId, log };
  // Read one after the other: the drafts finalized first are no longer drafts to re-price.
  const steps = [
    { read: () => repositories.invoices.draftsToFinalize(accountId, at, limits.invoicesPerCall + 1), finalize: true },
    { read: () => repositories.invoices.draftsToReprice(accountId, at, limits.invoicesPerCall + 1), finalize: false },
  ];
  for (const { read, finalize } of steps) {
    const drafts = await read();
    if (drafts.length > limits.invoicesPerCall) pass.run.hasMore = true;
    for (const draft of await draftsNotHeld(pass, drafts.slice(0, limits.invoicesPerCall))) {
      if (!pass.mayStartInvoice()) {
        pass.run.hasMore = true;
        return;
      }
      await pass.settle(draft.invoice, () =>
        finalize ? finalizeDraft(call, draft.invoice.id, { at, ifDraft: true }) : repriceDraft(call, draft, at),
      );
    }
  }
}
