import type { ObjectId } from "mongodb";
import { accountOfCall, billingNow } from "../../billing-clock.js";
import { lastOfEach } from "../../db/last-of-each.js";
import type { ContractInMicros } from "../../domain/billing/contract.js";
import type { CycleLookup } from "../../domain/billing/items.js";
import { pricesUsage } from "../../domain/billing/late-usage.js";
import type { Repositories } from "../../repositories/index.js";
import type { RollupRead } from "../../repositories/usage-rollup-docs.js";
import { subscribersAmong } from "../../repositories/webhook-endpoints.js";
import { batchLateLooks } from "./batch-late-looks.js";
import { batchLedgers } from "./batch-ledgers.js";
import { batchPayments } from "./batch-payments.js";
import { type BatchUsage, type CycleToPrice, NO_BATCH_USAGE, readBatchUsage } from "./batch-usage.js";
import { lateUsageSince } from "./late-usage.js";

/** What the invoices of a claimed batch will ask one by one, known before they are priced (see PassReads.prefetch). */
export interface BatchToPrice {
  contracts: ContractInMicros[];
  /**
   * The cycles the batch will price, in the order it will, each with its invoice's id: their usage is read together
   * (batch-usage.ts), and the pending payments of those finalized now opened together (batch-payments.ts).
   */
  cycles: (CycleToPrice & { invoiceId: ObjectId })[];
  /** INVOICE_DRAFT_PERIOD: a cycle due by `at` less this is finalized (and paid from credits) as it is stored. */
  draftMs: number;
  /** The pass's `at`: its invoices adjust those finalized in the late-usage window before it. */
  at: Date;
  /** Each contract's cycles as the run planned them (by contract id): where its late-usage look finds its originals. */
  cycleLookups: ReadonlyMap<string, CycleLookup>;
}

/**
 * The repositories as one billing pass reads them (a pass lasts at most its 3 s budget; docs/decisions.md, "One read
 * per pass"): what every invoice of the account asks again — the account, its enabled webhook endpoints, its payment
 * provider's connection, the meters and tax rates its contracts name — and each customer and each contract's coupon
 * redemptions, read once per pass; the invoice sequence and the number series read once and then guessed, each guess
 * decided by its unique insert. A claimed batch reads together, one command each, its contracts and their customers
 * (`contractsForChange`), then what its invoices would read one by one (`prefetch`): their redemptions, whether each
 * invoice exists, whose recurring grants are due, whose credit ledger is empty, the usage of all its cycles
 * (batch-usage.ts), the ends of its customers' credit ledgers (batch-ledgers.ts) and its contracts' late-usage looks
 * (batch-late-looks.ts). A ledger's position read for an invoice's balance is its payment's first guess (the entry's
 * unique insert decides it). Everything else goes to the repositories as they are: the contracts are read fresh by
 * the guard before their invoices are finalized.
 */
export function readOncePerPass(base: Repositories) {
  const reads = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    let pending = reads.get(key) as Promise<T> | undefined;
    if (!pending) {
      pending = read();
      reads.set(key, pending);
      // A failed read is not kept: the next asker reads again.
      pending.catch(() => reads.delete(key));
    }
    return pending;
  };
  const seed = (key: string, value: unknown) => void reads.set(key, Promise.resolve(value));
  /** Contracts read by the batch, each handed out once: a later batch that plans one again reads it again. */
  const forChange = new Map<string, Awaited<ReturnType<Repositories["contracts"]["getForChange"]>>>();
  /** Invoices the batch found not stored: each looked up once, by the run about to make it. */
  const absent = new Set<string>();
  /** Customers with no recurring grant due when their batch looked. */
  const nothingRecurringDue = new Set<string>();
  const { accounts, contracts, customers, webhookEndpoints, paymentProviders, invoices, documentNumbers } = base;
  const { couponRedemptions, creditRecurrences, credits, meters, taxRates, usageRollups, measurements } = base;
  /** The usage of the batch being priced, read together (batch-usage.ts): replaced by the next batch's. */
  let batchUsage: BatchUsage = NO_BATCH_USAGE;
  /** The batch's usage snapshot that answers a read (batch-usage.ts), if one covers it. */
  const rollupsCovering = (read: RollupRead) => batchUsage.rollups.find((snapshot) => snapshot.covers(read));
  const measuredCovering = (customerId: string, meterIds: readonly string[], fromDay: string, toDayExclusive: string) =>
    batchUsage.measured.find((snapshot) => snapshot.covers(customerId, meterIds, fromDay, toDayExclusive));
  const payments = batchPayments(base.billingRuns);
  /** A set of names as one memo key, whatever their order. */
  const keyOf = (names: readonly string[]) => [...new Set(names)].sort().join("\u0000");
  const ledgers = batchLedgers(base);
  const lateLooks = batchLateLooks(base);
  /**
   * The numbers the pass claimed, by series: its next claim's first guess. The pass's own, not the process's (as the
   * invoice places are): a number series has no gap, so its guess is never older than the pass.
   */
  const numbers = lastOfEach();
  const repositories: Repositories = {
    ...base,
    billingRuns: payments.billingRuns,
    accounts: {
      ...accounts,
      // As the call read it at its start (middleware/test-clock.ts), else read once.
      get: (accountId) =>
        once(`account ${accountId}`, async () => accountOfCall(accountId) ?? (await accounts.get(accountId))),
    },
    contracts: {
      ...contracts,
      getForChange: (accountId, contractId) => {
        if (!forChange.has(contractId)) return contracts.getForChange(accountId, contractId);
        const read = forChange.get(contractId);
        forChange.delete(contractId);
        return Promise.resolve(read);
      },
    },
    customers: {
      ...customers,
      get: (accountId, customerId) => once(`customer ${customerId}`, () => customers.get(accountId, customerId)),
      eventAliasesOf: (accountId, customer) =>
        once(`aliases ${customer.id}`, () => customers.eventAliasesOf(accountId, customer)),
    },
    usageRollups: {
      ...usageRollups,
      groupsByNameAndDay: async (accountId, names, aliases, fromDay, toDayExclusive) => {
        const read = { names, aliases, fromDay, toDayExclusive };
        const covering = rollupsCovering(read);
        if (covering) return covering.groupsByNameAndDay(read);
        return usageRollups.groupsByNameAndDay(accountId, names, aliases, fromDay, toDayExclusive);
      },
      storedAtOfDays: async (accountId, names, aliases, fromDay, toDayExclusive) => {
        const read = { names, aliases, fromDay, toDayExclusive };
        const covering = rollupsCovering(read);
        if (covering) return covering.storedAtOfDays(read);
        return usageRollups.storedAtOfDays(accountId, names, aliases, fromDay, toDayExclusive);
      },
    },
    measurements: {
      ...measurements,
      byDayOfMeters: async (accountId, customerId, meterIds, fromDay, toDayExclusive) => {
        const covering = measuredCovering(customerId, meterIds, fromDay, toDayExclusive);
        if (covering) return covering.byDayOfMeters(customerId, meterIds, fromDay, toDayExclusive);
        return measurements.byDayOfMeters(accountId, customerId, meterIds, fromDay, toDayExclusive);
      },
      updatedAtOfDays: async (accountId, customerId, meterIds, fromDay, toDayExclusive) => {
        const covering = measuredCovering(customerId, meterIds, fromDay, toDayExclusive);
        if (covering) return covering.updatedAtOfDays(customerId, meterIds, fromDay, toDayExclusive);
        return measurements.updatedAtOfDays(accountId, customerId, meterIds, fromDay, toDayExclusive);
      },
    },
    meters: {
      ...meters,
      byKeys: (accountId, keys) => once(`meters ${keyOf(keys)}`, () => meters.byKeys(accountId, keys)),
    },
    taxRates: {
      ...taxRates,
      ofCodes: (accountId, codes) => once(`tax rates ${keyOf(codes)}`, () => taxRates.ofCodes(accountId, codes)),
    },
    couponRedemptions: {
      ...couponRedemptions,
      ofContract: (accountId, contractId) =>
        once(`redemptions ${contractId}`, () => couponRedemptions.ofContract(accountId, contractId)),
    },
    creditRecurrences: {
      ...creditRecurrences,
      dueForCustomer: async (accountId, customerId, now, limit) =>
        nothingRecurringDue.has(customerId) ? [] : creditRecurrences.dueForCustomer(accountId, customerId, now, limit),
    },
    credits: {
      ...ledgers.credits,
      payInvoice: async (accountId, customerId, payment) => {
        const nothingToPay = payment.maxMicros === 0;
        const unpaidBefore = await payments.unpaidBefore(payment.invoiceId, { nothingToPay });
        return credits.payInvoice(accountId, customerId, payment, ledgers.positions, unpaidBefore);
      },
    },
    webhookEndpoints: {
      ...webhookEndpoints,
      subscribers: async (accountId, type, occurredAt) =>
        subscribersAmong(
          await once(`endpoints ${accountId}`, () => webhookEndpoints.enabled(accountId)),
          type,
          occurredAt,
        ),
    },
    paymentProviders: {
      ...paymentProviders,
      view: (accountId, provider) =>
        once(`provider ${accountId} ${provider}`, () => paymentProviders.view(accountId, provider)),
    },
    invoices: {
      ...lateLooks.invoices,
      get: async (accountId, invoiceId) => {
        if (absent.delete(invoiceId)) return undefined;
        return invoices.get(accountId, invoiceId);
      },
    },
    invoiceChanges: lateLooks.invoiceChanges,
    documentNumbers: {
      ...documentNumbers,
      claim: (claim) => documentNumbers.claim({ ...claim, guesses: numbers }),
      claimMany: (claims) => documentNumbers.claimMany({ ...claims, guesses: numbers }),
    },
  };

  return {
    repositories,

    /**
     * Once the batch's invoices are stored: closes the pending payments it opened together (batch-payments.ts), and
     * raises the hints of the ledgers it read past them (one command), for the next pass to read them together.
     */
    async closeBatch(accountId: string) {
      await payments.close();
      await ledgers.close(accountId);
    },

    /**
     * Reads the batch's contracts and their customers together (three commands): planning each then takes its own
     * without a read.
     */
    async contractsForChange(accountId: string, contractIds: string[]) {
      const found = await contracts.manyForChange(accountId, contractIds);
      for (const id of contractIds) forChange.set(id, found.get(id));
      const customerIds = new Set([...found.values()].map(({ stored }) => stored.customerId));
      const unread = [...customerIds].filter((id) => !reads.has(`customer ${id}`));
      const customersFound = await customers.many(accountId, unread);
      for (const id of unread) seed(`customer ${id}`, customersFound.get(id));
    },

    /**
     * Reads together what the batch's invoices would ask one by one: six commands for the batch, whatever its size,
     * one more for the last entries of its customers' credit ledgers (batch-ledgers.ts), three for the usage
     * its cycles price (batch-usage.ts); then, for contracts with invoices late usage may adjust, those invoices'
     * usage (three more) and their usage corrections (one: batch-late-looks.ts). Notes which invoices may open a
     * pending payment (batch-payments.ts).
     * A grant, redemption or invoice written after this look by another call is as if written after the pass (a
     * concurrent run's invoice still loses its unique insert here).
     */
    async prefetch(accountId: string, { contracts: planned, cycles, at, draftMs, cycleLookups }: BatchToPrice) {
      const invoiceIds = cycles.map(({ invoiceId }) => invoiceId);
      const customerIds = [...new Set(planned.map(({ customerId }) => customerId))];
      const contractIds = [...new Set(planned.map(({ id }) => id))].filter((id) => !reads.has(`redemptions ${id}`));
      const since = await lateUsageSince(repositories, accountId, at);
      const adjusting = since ? [...new Map(planned.filter(pricesUsage).map((c) => [c.id, c])).values()] : [];
      batchUsage = NO_BATCH_USAGE;
      const [redemptions, stored, recurring, withEntries, , usage, hints] = await Promise.all([
        couponRedemptions.ofContracts(accountId, contractIds),
        invoices.existing(
          accountId,
          cycles.map(({ invoiceId, contract }) => ({ invoiceId, contractId: contract.id })),
        ),
        creditRecurrences.customersWithDue(accountId, customerIds, billingNow(accountId)),
        credits.customersWithEntries(accountId, customerIds),
        since && lateLooks.read(accountId, adjusting, since),
        readBatchUsage(repositories, accountId, cycles),
        ledgers.hintsOf(accountId, customerIds),
      ]);
      // The usage of the invoices late usage may adjust, and their corrections: with what the first reads found.
      const [originalsUsage] = await Promise.all([
        readBatchUsage(repositories, accountId, lateLooks.originalCycles(adjusting, cycleLookups)),
        lateLooks.readCorrections(accountId),
      ]);
      batchUsage = {
        rollups: [...usage.rollups, ...originalsUsage.rollups],
        measured: [...usage.measured, ...originalsUsage.measured],
      };
      for (const [contractId, ofContract] of redemptions) seed(`redemptions ${contractId}`, ofContract);
      for (const id of invoiceIds) if (!stored.has(id.toHexString())) absent.add(id.toHexString());
      payments.prepare(
        cycles
          .filter(({ contract, cycle, invoiceId }) => {
            const withCredits = recurring.has(contract.customerId) || withEntries.has(contract.customerId);
            const finalNow = cycle.dueAt.getTime() + draftMs <= at.getTime();
            return withCredits && finalNow && !stored.has(invoiceId.toHexString());
          })
          .map(({ contract, cycle, invoiceId }) => ({
            _id: invoiceId,
            accountId,
            contractId: contract.id,
            cycleKey: cycle.key,
            cycleStart: cycle.start,
          })),
      );
      await ledgers.prefetch(accountId, { hints, withEntries, recurring });
      for (const customerId of customerIds) {
        if (recurring.has(customerId)) continue;
        nothingRecurringDue.add(customerId);
        if (!withEntries.has(customerId)) ledgers.noteEmpty(customerId);
      }
    },
  };
}

export type PassReads = ReturnType<typeof readOncePerPass>;
