import { type Invoice, type InvoiceDispute, invoiceDraft } from "@billing/shared";
import type { Db, Filter, ObjectId } from "mongodb";
import type { Counter } from "prom-client";
import { billingNow } from "../billing-clock.js";
import { accountsHolding } from "../db/accounts-holding.js";
import { changedSince } from "../db/changed-since.js";
import { countedStream } from "../db/counted-stream.js";
import { databasesRoutedByAccount } from "../db/find-owned.js";
import { canonicalId, toObjectId } from "../db/ids.js";
import { findPage, SEQ_ORDER } from "../db/pagination.js";
import type { InvoiceDraftInMicros } from "../domain/billing/pipeline.js";
import type { InvoiceFinality } from "../domain/invoices/life.js";
import { DEFAULT_CURRENCY } from "../domain/money/currency.js";
import { addMicros, type Micros } from "../domain/money/micros.js";
import { presentInvoiceDraft } from "../presenters/invoices.js";
import { type InvoiceDoc, lifeFields, type StoredInvoiceLife, storedPricingOf } from "../presenters/stored-invoices.js";
import type { Hooks } from "./hooks.js";
import { createInvoiceContracts } from "./invoice-contracts.js";
import { ensureInvoiceIndexes } from "./invoice-indexes.js";
import { docOf, invoiceInserts, type StoredInvoice, toInvoice, toStored } from "./invoice-inserts.js";
import {
  filtersIssued,
  filtersLife,
  type InvoiceListRequest,
  issuedFilter,
  lifeFilter,
} from "./invoice-list-filter.js";
import { createInvoicePlaces } from "./invoice-places.js";
import { type InvoiceRef, ofContracts, refFilter } from "./invoice-refs.js";
import type { ListCountRepository } from "./list-counts.js";

export type { StoredPricing } from "../presenters/stored-invoices.js";
export type { InvoicePlacement } from "../presenters/stored-new-invoices.js";
export type { InsertedInvoice, NewInvoice, StoredInvoice } from "./invoice-inserts.js";
export type { InvoiceListRequest } from "./invoice-list-filter.js";
export type { InvoiceRef } from "./invoice-refs.js";

/** Throws for a draft the money rule refuses: as the API states it, before it is stored. */
const checkDraft = (draft: InvoiceDraftInMicros) => void invoiceDraft.parse(presentInvoiceDraft(draft));

/** An invoice as late usage reads it: stored, and since when its lines are final. */
export type AdjustableInvoice = StoredInvoice & { finality: InvoiceFinality };

/** What tells whether and since when an invoice's lines are final (domain finalSince). */
const finalityOf = ({ status, createdAt, finalizationLoggedAt, finalizedAt }: InvoiceDoc): InvoiceFinality => ({
  ...(status !== undefined && { status }),
  createdAt,
  finalizationLoggedAt: finalizationLoggedAt ?? null,
  finalizedAt: finalizedAt ?? null,
});

/** What a billing run settles or numbers: drafts, and the FINALIZED invoices without a number (finalizedUnnumbered). */
const TO_SETTLE = {
  $or: [{ status: "DRAFT" }, { number: null, status: { $in: ["FINALIZED", null] } }],
} as Filter<InvoiceDoc>;

/** `created` counts the invoices whose insert created them (the service's `billing_invoices_created_total`). */
export function createInvoiceRepository(db: Db, hooks: Hooks, created: Counter, listCounts: ListCountRepository) {
  const invoices = db.collection<InvoiceDoc>("invoices");
  const onCluster = () => databasesRoutedByAccount.has(invoices.dbName);
  const places = createInvoicePlaces(db, invoices);
  const contracts = createInvoiceContracts(db, invoices);
  // Invoices are never deleted and keep their account and createdAt: the unfiltered list's total is counted.
  const stored = countedStream("invoices", invoices, "createdAt");

  return {
    async ensureIndexes() {
      await ensureInvoiceIndexes(invoices);
      await places.ensureIndexes();
      await contracts.ensureIndexes();
    },
    noteStoredContracts: () => contracts.noteStored(),

    /**
     * The customer's invoices whose billing cycle holds the instant: which meters each priced, and what tells whether
     * and since when its lines are final (domain finalSince): those an event of that moment may have been billed on.
     */
    async meteredAt(
      accountId: string,
      customerId: string,
      instant: Date,
    ): Promise<(InvoiceFinality & { id: string; contractId: string; meterKeys: string[] })[]> {
      const docs = await invoices
        .find({
          accountId,
          customerId: canonicalId(customerId),
          "billingCycle.startTime": { $lte: instant },
          "billingCycle.endTime": { $gt: instant },
        })
        .toArray();
      return docs.map((doc) => ({
        ...finalityOf(doc),
        id: doc._id.toHexString(),
        contractId: String(doc.contractId),
        meterKeys: doc.meterKeys,
      }));
    },

    ...invoiceInserts(invoices, places, contracts, hooks, created, checkDraft),

    /**
     * What the finalized invoices of a customer (of one of its contracts, with `contractId`) whose cycle starts in
     * [from, to) charged before credits, in micro-units each: at most `limit` of them, oldest cycle first.
     */
    async finalizedChargesMicros(
      accountId: string,
      scope: { customerId: string } | { contractId: string },
      from: Date,
      to: Date,
      limit: number,
    ): Promise<{ currency: string; chargesMicros: Micros; taxMicros: Micros }[]> {
      const owner =
        "contractId" in scope
          ? { contractId: canonicalId(scope.contractId) }
          : { customerId: canonicalId(scope.customerId) };
      const docs = await invoices
        .find(
          { accountId, ...owner, status: "FINALIZED", "billingCycle.startTime": { $gte: from, $lt: to } },
          { projection: { revenueBreakdown: 1, currency: 1 }, sort: { "billingCycle.startTime": 1 }, limit },
        )
        .toArray();
      return docs.map(({ revenueBreakdown, currency = DEFAULT_CURRENCY }) => ({
        currency,
        chargesMicros: addMicros(revenueBreakdown.total, revenueBreakdown.creditsUsed),
        taxMicros: revenueBreakdown.tax,
      }));
    },

    /**
     * Late usage's first look for a billing batch: what `adjustable` reads of each of these contracts (at most
     * `perContract` of each kind), in one read of each kind of at most `limit` invoices in all; undefined when
     * there are more (each contract then reads its own). Every contract asked has its entry, empty or not.
     */
    async adjustableOf(
      accountId: string,
      contractIds: string[],
      since: Date,
      { perContract, limit }: { perContract: number; limit: number },
    ): Promise<Map<string, { finalized: AdjustableInvoice[]; drafts: AdjustableInvoice[] }> | undefined> {
      const contractId = { $in: contractIds.map(canonicalId) };
      const read = (filter: object) =>
        contractIds.length === 0
          ? []
          : invoices
              .find({ accountId, contractId, ...filter } as Filter<InvoiceDoc>)
              .limit(limit + 1)
              .toArray();
      const [finalized, drafts] = await Promise.all([
        read({ status: "FINALIZED", finalizedAt: { $gte: since } }),
        read({ status: "DRAFT" }),
      ]);
      if (finalized.length > limit || drafts.length > limit) return undefined;
      const byContract = new Map<string, { finalized: AdjustableInvoice[]; drafts: AdjustableInvoice[] }>(
        contractIds.map((id) => [canonicalId(id), { finalized: [], drafts: [] }]),
      );
      const adjustable = (doc: InvoiceDoc): AdjustableInvoice => ({ ...toStored(doc), finality: finalityOf(doc) });
      const byFinalizedAt = (a: InvoiceDoc, b: InvoiceDoc) =>
        (a.finalizedAt?.getTime() ?? 0) - (b.finalizedAt?.getTime() ?? 0);
      for (const doc of finalized.sort(byFinalizedAt)) {
        const own = byContract.get(doc.contractId)?.finalized;
        if (own && own.length < perContract) own.push(adjustable(doc));
      }
      for (const doc of drafts) {
        const own = byContract.get(doc.contractId)?.drafts;
        if (own && own.length < perContract) own.push(adjustable(doc));
      }
      return byContract;
    },

    /**
     * Late usage (issue 45): the contract's invoices finalized at or after `since` (the originals a run adjusts, and
     * the invoices carrying their adjustments), then its drafts (which may carry some too); `finalized: false` or
     * `drafts: false` reads only the others. At most `limit` of each.
     */
    async adjustable(
      accountId: string,
      contractId: string,
      since: Date,
      limit: number,
      { finalized: withFinalized = true, drafts: withDrafts = true } = {},
    ): Promise<AdjustableInvoice[]> {
      const contract = canonicalId(contractId);
      const [finalized, drafts] = await Promise.all([
        !withFinalized
          ? []
          : invoices
              .find({
                accountId,
                contractId: contract,
                status: "FINALIZED",
                finalizedAt: { $gte: since },
              } as Filter<InvoiceDoc>)
              .sort({ finalizedAt: 1 })
              .limit(limit)
              .toArray(),
        withDrafts
          ? invoices
              .find({ accountId, contractId: contract, status: "DRAFT" } as Filter<InvoiceDoc>)
              .limit(limit)
              .toArray()
          : [],
      ]);
      return [...finalized, ...drafts].map((doc) => ({ ...toStored(doc), finality: finalityOf(doc) }));
    },

    /** Whether the contract has an invoice of the planned cycle `cycleKey` (a draft or not). */
    async hasCycle(accountId: string, contractId: string, cycleKey: string): Promise<boolean> {
      const found = await invoices.findOne(
        { accountId, contractId: canonicalId(contractId), cycleKey } as Filter<InvoiceDoc>,
        { projection: { _id: 1 } },
      );
      return found !== null;
    },

    /** Where the contract's invoicing reached: the end of the cycle of its latest invoice (made in ready order). */
    async lastCycleEnd(accountId: string, contractId: string): Promise<Date | undefined> {
      const latest = await invoices.findOne(
        { accountId, contractId: canonicalId(contractId) },
        { sort: { seq: -1 }, projection: { "billingCycle.endTime": 1 } },
      );
      return latest?.billingCycle.endTime;
    },

    /** Which of these invoices the account has stored (a billing batch's look before it prices them). */
    async existing(accountId: string, planned: { invoiceId: ObjectId; contractId: string }[]): Promise<Set<string>> {
      if (planned.length === 0) return new Set();
      const named = planned.map(({ invoiceId, contractId }) => ({ _id: invoiceId, contractId }));
      const found = await invoices.find(ofContracts(accountId, named), { projection: { _id: 1 } }).toArray();
      return new Set(found.map(({ _id }) => _id.toHexString()));
    },

    async get(accountId: string, invoiceId: string): Promise<Invoice | undefined> {
      const doc = await contracts.findOwned(accountId, toObjectId(invoiceId));
      return doc ? toInvoice(doc) : undefined;
    },

    /** Records the provider's dispute of one of its charges, or clears it (won or closed). */
    async setDispute(accountId: string, invoice: InvoiceRef, dispute: InvoiceDispute | undefined) {
      const filter = refFilter(accountId, invoice, onCluster());
      if (!filter) return;
      await invoices.updateOne(filter, dispute ? { $set: { dispute } } : { $unset: { dispute: "" } });
    },

    /** The invoice and its life as stored: changes logged after its changeCount are not applied yet. */
    async getStored(accountId: string, invoiceId: string): Promise<StoredInvoice | undefined> {
      const doc = await contracts.findOwned(accountId, toObjectId(invoiceId));
      return doc ? toStored(doc) : undefined;
    },

    /**
     * Writes the life after a logged change (or several): every field of it, lines and totals included, so that a
     * write lost to a concurrent one leaves a document consistent with some changeCount, which the log completes.
     */
    async writeLife(accountId: string, invoice: InvoiceRef, life: StoredInvoiceLife): Promise<Invoice | undefined> {
      const filter = refFilter(accountId, invoice, onCluster());
      if (!filter) return undefined;
      await hooks("invoices.applyChange", invoice.id);
      const doc = await invoices.findOneAndUpdate(
        filter,
        { $set: { ...lifeFields(life), updatedAt: new Date() } },
        { returnDocument: "after" },
      );
      return doc ? toInvoice(doc) : undefined;
    },

    /**
     * writeLife of several invoices (a billing batch's finalizations) in one write: each invoice as its life now
     * stands, by id, presented from the document it was read or stored as (docOf) with the life written, or read back
     * in one read when that is not known. Each update names its invoice by its ref (refFilter: `_id` alone off a
     * sharded cluster, the key's fields on one). The invoices are ones the caller read or stored for the account.
     */
    async writeLives(accountId: string, lives: { stored: StoredInvoice; life: StoredInvoiceLife }[]) {
      const updatedAt = new Date();
      for (const { stored } of lives) await hooks("invoices.applyChange", stored.invoice.id);
      const named = lives.flatMap(({ stored, life }) => {
        const filter = refFilter(accountId, stored.invoice, onCluster());
        return filter ? [{ stored, life, filter }] : [];
      });
      const written = new Map<string, StoredInvoice>();
      if (named.length === 0) return written;
      await invoices.bulkWrite(
        named.map(({ filter, life }) => ({
          updateOne: { filter, update: { $set: { ...lifeFields(life), updatedAt } } },
        })),
        { ordered: false },
      );
      const unknown: { _id: ObjectId; contractId: string }[] = [];
      for (const { stored, life, filter } of named) {
        const doc = docOf(stored);
        if (doc) written.set(stored.invoice.id, toStored({ ...doc, ...lifeFields(life), updatedAt }));
        else unknown.push({ _id: filter._id, contractId: stored.invoice.contractId });
      }
      if (unknown.length === 0) return written;
      for (const doc of await invoices.find(ofContracts(accountId, unknown)).toArray())
        written.set(doc._id.toHexString(), toStored(doc));
      return written;
    },

    /** The account's drafts that runs finalize by `at`, soonest first. */
    async draftsToFinalize(accountId: string, at: Date, limit: number): Promise<StoredInvoice[]> {
      const docs = await invoices
        .find({ accountId, status: "DRAFT", finalizesAt: { $lte: at } })
        .sort({ finalizesAt: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toStored);
    },

    /**
     * Up to `limit` of the account's invoices a billing run settles or numbers (TO_SETTLE), each with its contract and
     * whether it is a draft: when none, a run reads neither.
     */
    async someToSettle(accountId: string, limit: number): Promise<{ contractId: string; draft: boolean }[]> {
      const found = await invoices
        .find({ accountId, ...TO_SETTLE }, { projection: { contractId: 1, status: 1 }, batchSize: limit })
        .limit(limit)
        .toArray();
      return found.map(({ contractId, status }) => ({ contractId: String(contractId), draft: status === "DRAFT" }));
    },

    /** Accounts after `after` with an invoice to settle or number, in id order: the billing scheduler's look. */
    accountsToSettle: (after: string | undefined, wanted: number) =>
      accountsHolding(invoices, TO_SETTLE, after, wanted),

    /** Whether the account has an invoice at all (a live account with one never becomes a test account). */
    async anyOf(accountId: string): Promise<boolean> {
      return (await invoices.findOne({ accountId }, { sort: { seq: 1 }, projection: { _id: 1 } })) !== null;
    },

    /**
     * The earliest moment after `after` (any, when undefined) at which a draft of the account is to be finalized: where
     * a test clock's advance stops to finalize it (services/billing/test-clock/due-work.ts).
     */
    async nextFinalization(accountId: string, after: Date | undefined): Promise<Date | undefined> {
      const filter = { accountId, status: "DRAFT" as const, finalizesAt: { $gt: after ?? new Date(-8.64e15) } };
      const next = await invoices.findOne(filter, { sort: { finalizesAt: 1 }, projection: { finalizesAt: 1 } });
      return next?.finalizesAt;
    },

    /**
     * The account's FINALIZED invoices without a number, in the order they were stored: invoices stored before the
     * invoice life (no `status` field, or FINALIZED by a change made since). Drafts and voided ones are passed over.
     */
    async finalizedUnnumbered(accountId: string, limit: number): Promise<StoredInvoice[]> {
      const docs = await invoices
        .find({ accountId, number: null, status: { $in: ["FINALIZED", null] } } as Filter<InvoiceDoc>)
        .sort({ seq: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toStored);
    },

    /**
     * Up to `limit` of the account's invoices stored after the `afterSeq`-th (from the first when absent), in the order
     * they were stored, each with its `seq`: a page of a walk over every invoice (the report ledgers' backfill).
     */
    async storedAfter(
      accountId: string,
      afterSeq: number | undefined,
      limit: number,
    ): Promise<{ seq: number; stored: StoredInvoice }[]> {
      const filter = afterSeq === undefined ? { accountId } : { accountId, seq: { $gt: afterSeq } };
      const docs = await invoices.find(filter).sort({ seq: 1 }).limit(limit).toArray();
      return docs.map((doc) => ({ seq: doc.seq, stored: toStored(doc) }));
    },

    /** The account's drafts last priced by a run before `at`, least recently priced first. */
    async draftsToReprice(accountId: string, at: Date, limit: number): Promise<StoredInvoice[]> {
      const docs = await invoices
        .find({ accountId, status: "DRAFT", pricedAt: { $lt: at } })
        .sort({ pricedAt: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toStored);
    },

    /**
     * A draft's new lines and totals, priced by a run at `pricedAt` (a REPRICE: services/invoices/reprice.ts): written
     * only while it is a draft with no logged change (a finalization's lines come from its FINALIZE, replayed over
     * whatever a concurrent write left).
     */
    async reprice(accountId: string, invoice: InvoiceRef, draft: InvoiceDraftInMicros, pricedAt: Date): Promise<void> {
      const filter = refFilter(accountId, invoice, onCluster());
      checkDraft(draft);
      if (!filter) return;
      const pricing = storedPricingOf(draft);
      await invoices.updateOne(
        { ...filter, status: "DRAFT", changeCount: 0 },
        { $set: { ...pricing, pricedAt, updatedAt: new Date() } },
      );
    },

    /** Invoices created at or after `since`, across accounts, oldest first: for the webhook sweep. */
    createdSince(since: Date, limit: number) {
      return changedSince(invoices, "createdAt", since, limit, toInvoice);
    },

    /** Invoices finalized (server's clock), paid in full or voided at or after `since`, oldest first: for the sweep. */
    changedSince(change: "finalizationLoggedAt" | "paidAt" | "voidedAt", since: Date, limit: number) {
      return changedSince(invoices, change, since, limit, toInvoice);
    },

    /**
     * In the order the invoices were stored (`seq`). The life filters and the issue date's bounds combine with
     * `customerId` (the router refuses them with `contractId`, and the bounds with `overdue`: no index of both).
     */
    list(accountId: string, request: InvoiceListRequest, now = billingNow(accountId)) {
      const { customerId, contractId, limit, cursor } = request;
      const issued = filtersIssued(request);
      const filter = {
        accountId,
        ...(customerId !== undefined && { customerId: canonicalId(customerId) }),
        ...(contractId !== undefined && { contractId: canonicalId(contractId) }),
        ...((filtersLife(request) || issued) && lifeFilter(request, now)),
        ...(issued && issuedFilter(request)),
      } as Filter<InvoiceDoc>;
      // A filtered list counts its matches: no count is kept per customer, contract or life state.
      const counted = Object.keys(filter).length === 1 ? () => listCounts.total(accountId, stored) : undefined;
      return findPage(invoices, filter, { limit, cursor }, toStored, SEQ_ORDER, counted);
    },

    /** What the unfiltered list's total counts: compacted by services/list-totals.ts. */
    countedStreams: [stored],
  };
}
