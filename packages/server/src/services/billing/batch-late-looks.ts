import type { ContractInMicros } from "../../domain/billing/contract.js";
import { type CycleLookup, plannedInvoiceByKey } from "../../domain/billing/items.js";
import type { Repositories } from "../../repositories/index.js";
import type { AdjustableInvoice } from "../../repositories/invoices.js";
import type { CycleToPrice } from "./batch-usage.js";
import { MAX_ADJUSTABLE } from "./late-usage.js";

/** The most invoices of each kind (finalized, drafts) one batch's late-usage read takes: else each contract reads. */
const MAX_ADJUSTABLE_A_BATCH = 1_000;

/** The most originals whose usage corrections a batch reads together (an `$in` of their ids). */
const MAX_CORRECTED_A_BATCH = 200;

type UsageCorrections = Awaited<ReturnType<Repositories["invoiceChanges"]["usageCorrections"]>>;

/** What one contract's late-usage look (late-usage.ts lateUsageOf) reads, read with its batch. */
interface LateLook {
  since: number;
  finalized: AdjustableInvoice[];
  /** Its drafts, until its first look takes them. */
  drafts: AdjustableInvoice[] | undefined;
  /** Its originals' usage corrections, by original; absent: not read with the batch. */
  corrections: Map<string, UsageCorrections>;
  /** Its first look has taken `finalized`: the rest belongs to that look. */
  taken: boolean;
}

/**
 * Late usage's looks of a billing batch's contracts, read together (docs/decisions.md, "A batch reads its late-usage
 * looks together"): each contract's invoices finalized in the window and its drafts (one read of each kind for the
 * batch), the usage of those invoices' cycles (with the batch's usage: batch-usage.ts), and their usage corrections
 * (one read), instead of up to eight reads a contract. A contract's first look of the pass takes what its batch read;
 * any later look of it in the pass (a backlog's next cycle, the look after its end) reads its own, as every look did:
 * it must see the invoices and notes the pass has made since.
 */
export function batchLateLooks({ invoices, invoiceChanges }: Repositories) {
  const looks = new Map<string, LateLook>();
  /** Each original read with a batch, to its contract. */
  const contractOf = new Map<string, string>();

  return {
    /**
     * Reads the batch's contracts' invoices late usage may adjust (two commands, beside the batch's other reads):
     * each contract's first look then takes them; none when there are more than MAX_ADJUSTABLE_A_BATCH.
     */
    async read(accountId: string, contracts: readonly ContractInMicros[], since: Date) {
      const contractIds = [...new Set(contracts.map(({ id }) => id))];
      // The batch before is priced: what it read is of no use now.
      looks.clear();
      contractOf.clear();
      const found = await invoices.adjustableOf(accountId, contractIds, since, {
        perContract: MAX_ADJUSTABLE,
        limit: MAX_ADJUSTABLE_A_BATCH,
      });
      for (const [contractId, { finalized, drafts }] of found ?? []) {
        looks.set(contractId, { since: since.getTime(), finalized, drafts, corrections: new Map(), taken: false });
        for (const { invoice } of finalized) contractOf.set(invoice.id, contractId);
      }
    },

    /**
     * The cycles of the invoices read, for their usage to be read: each looked up in its contract's cycles as the run
     * planned them (`cycles`, by contract: the look asks them again), else planned here.
     */
    originalCycles(contracts: readonly ContractInMicros[], cycles: ReadonlyMap<string, CycleLookup>): CycleToPrice[] {
      return contracts.flatMap((contract) => {
        const cycleOf = cycles.get(contract.id) ?? ((key, start) => plannedInvoiceByKey(contract, key, start));
        return (looks.get(contract.id)?.finalized ?? []).flatMap(({ invoice, cycleKey }) => {
          const cycle = cycleOf(cycleKey, new Date(invoice.billingCycle.startTime));
          return cycle ? [{ contract, cycle }] : [];
        });
      });
    },

    /** Reads the usage corrections of the invoices read (one command; none past MAX_CORRECTED_A_BATCH invoices). */
    async readCorrections(accountId: string) {
      const ids = [...contractOf.keys()];
      if (ids.length === 0 || ids.length > MAX_CORRECTED_A_BATCH) return;
      for (const [invoiceId, corrections] of await invoiceChanges.usageCorrectionsOf(accountId, ids))
        looks.get(contractOf.get(invoiceId) ?? "")?.corrections.set(invoiceId, corrections);
    },

    invoices: {
      ...invoices,
      adjustable: async (...args: Parameters<Repositories["invoices"]["adjustable"]>) => {
        const [, contractId, since, limit, kinds] = args;
        const look = looks.get(contractId);
        const ours = look?.since === since.getTime() && limit === MAX_ADJUSTABLE;
        const firstRead = kinds?.finalized !== false && kinds?.drafts === false;
        if (firstRead) {
          // A contract's look starts here: its first takes the batch's read, a later one reads its own.
          if (look && ours && !look.taken) {
            look.taken = true;
            return look.finalized;
          }
          looks.delete(contractId);
        } else if (look?.taken && ours && kinds?.finalized === false && look.drafts) {
          const { drafts } = look;
          look.drafts = undefined;
          return drafts;
        }
        return invoices.adjustable(...args);
      },
    },

    invoiceChanges: {
      ...invoiceChanges,
      usageCorrections: async (accountId: string, invoiceId: string) => {
        const look = looks.get(contractOf.get(invoiceId) ?? "");
        const corrections = look?.taken ? look.corrections.get(invoiceId) : undefined;
        if (!corrections) return invoiceChanges.usageCorrections(accountId, invoiceId);
        look?.corrections.delete(invoiceId);
        return corrections;
      },
    },
  };
}
