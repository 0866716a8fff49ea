import type { Db } from "mongodb";
import { createSecretBox, type SealingKey } from "../auth/secret-box.js";
import { createMetrics, type ServiceMetrics } from "../observability/metrics.js";
import type { StoredPricing } from "../presenters/stored-invoices.js";
import { createAccountRepository } from "./accounts.js";
import { createAlertCrossingRepository } from "./alert-crossings.js";
import { createAlertRepository } from "./alerts.js";
import { createAuditLogRepository } from "./audit-log.js";
import { createBackfillRepository } from "./backfills.js";
import { createBillingClaimRepository } from "./billing-claims.js";
import { createBillingRunRepository } from "./billing-runs.js";
import { createCollectionAttemptRepository } from "./collection-attempts.js";
import { createCollectionEntryRepository } from "./collection-entries.js";
import { createContractChangeInFlightRepository } from "./contract-changes-in-flight.js";
import { createContractTransitionRepository } from "./contract-transitions.js";
import { createContractRepository } from "./contracts.js";
import { createCouponRedemptionRepository } from "./coupon-redemptions.js";
import { createCouponRepository } from "./coupons.js";
import { createCreditExpiryRepository } from "./credit-expiries.js";
import { createCreditLedgerHintRepository } from "./credit-ledger-hints.js";
import { createCreditNoteRepository } from "./credit-notes.js";
import { createCreditRecurrenceRepository } from "./credit-recurrences.js";
import { createCreditRepository } from "./credits.js";
import { createCustomerRepository } from "./customers.js";
import { createDocumentNumberRepository } from "./document-numbers.js";
import { createDunningStepRepository } from "./dunning-steps.js";
import { createEventVoidRepository } from "./event-voids.js";
import { createEventRepository } from "./events.js";
import { createExportChunkRepository } from "./export-chunks.js";
import { createExportRepository } from "./exports.js";
import { type Hooks, noHooks } from "./hooks.js";
import { createIdempotencyKeyRepository } from "./idempotency-keys.js";
import { createInvoiceChangeRepository } from "./invoice-changes.js";
import { createInvoiceCollectionRepository } from "./invoice-collections.js";
import { createInvoiceRepository } from "./invoices.js";
import { createListCountRepository } from "./list-counts.js";
import { createMeasurementRepository } from "./measurements.js";
import { createMeterRepository } from "./meters.js";
import { createMrrLedgerRepository } from "./mrr-ledger.js";
import { createPaymentProviderRepository } from "./payment-providers.js";
import { createPaymentRepository } from "./payments.js";
import { createPlanMigrationRepository } from "./plan-migrations.js";
import { createPlanRepository } from "./plans.js";
import { createPortalKeyRepository } from "./portal-keys.js";
import { createProviderEventRepository } from "./provider-events.js";
import { createRateLimitRepository } from "./rate-limits.js";
import { createReceivableEntryRepository } from "./receivable-entries.js";
import { createReportClosingRepository } from "./report-closings.js";
import { createReportLedgerBackfillRepository } from "./report-ledger-backfill.js";
import { createReservationRepository } from "./reservations.js";
import { createRevenueScheduleRepository } from "./revenue-schedules.js";
import { createRollupWideningRepository } from "./rollup-widenings.js";
import { createStreamLeaseRepository } from "./stream-leases.js";
import { createTaxRateRepository } from "./tax-rates.js";
import { createTestClockLeaseRepository } from "./test-clock-leases.js";
import { createTokenRepository } from "./tokens.js";
import { createUsageRollupRepository } from "./usage-rollups.js";
import { createWebhookAttemptRepository } from "./webhook-attempts.js";
import { createWebhookDeliveryRepository } from "./webhook-deliveries.js";
import { createWebhookEndpointRepository } from "./webhook-endpoints.js";
import { createWebhookMessageRepository } from "./webhook-messages.js";

export interface RepositoryOptions {
  /** Pauses and faults between steps: tests only. */
  hooks?: Hooks;
  /**
   * Keys sealing webhook signing secrets and kept answers of keyed calls (WEBHOOK_SECRET_KEYS); both are stored as
   * they are without any.
   */
  sealingKeys?: SealingKey[];
  /** Where writes are counted; a registry nobody reads when absent (the CLI). */
  metrics?: ServiceMetrics;
  /** How long audit log entries are kept (AUDIT_RETENTION_DAYS; 400 when absent). */
  auditRetentionDays?: number;
  /** EXPORT_RETENTION_DAYS: how long exports and their files are kept (7 when absent). */
  exportRetentionDays?: number;
}

/** Every repository of the service, each owning its collection and indexes. */
export function createRepositories(
  db: Db,
  {
    hooks = noHooks,
    sealingKeys = [],
    metrics = createMetrics(),
    auditRetentionDays,
    exportRetentionDays,
  }: RepositoryOptions = {},
) {
  const secretBox = createSecretBox(sealingKeys);
  const usageRollups = createUsageRollupRepository(db, hooks);
  const meters = createMeterRepository(db);
  const listCounts = createListCountRepository(db);
  const contractTransitions = createContractTransitionRepository(db);
  return {
    accounts: createAccountRepository(db),
    tokens: createTokenRepository(db, hooks),
    customers: createCustomerRepository(db, listCounts),
    contracts: createContractRepository(db, hooks, listCounts, contractTransitions),
    contractTransitions,
    contractChangesInFlight: createContractChangeInFlightRepository(db, hooks),
    measurements: createMeasurementRepository(db),
    meters,
    taxRates: createTaxRateRepository(db),
    coupons: createCouponRepository(db),
    couponRedemptions: createCouponRedemptionRepository(db),
    reservations: createReservationRepository(db),
    credits: createCreditRepository(db, hooks),
    creditExpiries: createCreditExpiryRepository(db),
    creditLedgerHints: createCreditLedgerHintRepository(db),
    creditRecurrences: createCreditRecurrenceRepository(db),
    events: createEventRepository(db, metrics.eventsIngested, hooks, usageRollups, meters.dimensionKeysByEventName),
    eventVoids: createEventVoidRepository(db),
    backfills: createBackfillRepository(db),
    usageRollups,
    rollupWidenings: createRollupWideningRepository(db),
    invoices: createInvoiceRepository(db, hooks, metrics.invoicesCreated, listCounts),
    listCounts,
    invoiceChanges: createInvoiceChangeRepository<StoredPricing>(db, metrics.countMoneyChange),
    documentNumbers: createDocumentNumberRepository(db, hooks),
    payments: createPaymentRepository(db),
    receivableEntries: createReceivableEntryRepository(db),
    collectionEntries: createCollectionEntryRepository(db),
    revenueSchedules: createRevenueScheduleRepository(db),
    mrrLedger: createMrrLedgerRepository(db),
    reportLedgerBackfill: createReportLedgerBackfillRepository(db),
    reportClosings: createReportClosingRepository(db),
    exports: createExportRepository(db, exportRetentionDays),
    exportChunks: createExportChunkRepository(db),
    creditNotes: createCreditNoteRepository(db),
    billingRuns: createBillingRunRepository(db),
    billingClaims: createBillingClaimRepository(db),
    rateLimits: createRateLimitRepository(db),
    idempotencyKeys: createIdempotencyKeyRepository(db, hooks, secretBox),
    webhookEndpoints: createWebhookEndpointRepository(db, secretBox),
    webhookMessages: createWebhookMessageRepository(db, hooks),
    webhookDeliveries: createWebhookDeliveryRepository(db),
    webhookAttempts: createWebhookAttemptRepository(db),
    alerts: createAlertRepository(db),
    alertCrossings: createAlertCrossingRepository(db),
    testClockLeases: createTestClockLeaseRepository(db, hooks),
    plans: createPlanRepository(db),
    planMigrations: createPlanMigrationRepository(db, hooks),
    auditLog: createAuditLogRepository(db, auditRetentionDays),
    paymentProviders: createPaymentProviderRepository(db, secretBox),
    collectionAttempts: createCollectionAttemptRepository(db),
    invoiceCollections: createInvoiceCollectionRepository(db),
    dunningSteps: createDunningStepRepository(db),
    providerEvents: createProviderEventRepository(db),
    portalKeys: createPortalKeyRepository(db, secretBox),
    streamLeases: createStreamLeaseRepository(db),
  };
}
export type Repositories = ReturnType<typeof createRepositories>;

/** Idempotent: safe on every start-up and from several instances at once. */
export async function ensureIndexes(repositories: Repositories) {
  await Promise.all(Object.values(repositories).map((repository) => repository.ensureIndexes()));
}
