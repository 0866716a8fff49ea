import { router } from "../trpc.js";
import { adminRouter } from "./admin.js";
import { alertsRouter } from "./alerts.js";
import { auditLogRouter } from "./audit-log.js";
import { backfillsRouter } from "./backfills.js";
import { billingRouter } from "./billing.js";
import { collectionRouter } from "./collection.js";
import { contractsRouter } from "./contracts.js";
import { couponsRouter } from "./coupons.js";
import { creditNotesRouter } from "./credit-notes.js";
import { creditsRouter } from "./credits.js";
import { customersRouter } from "./customers.js";
import { entitlementsRouter } from "./entitlements.js";
import { eventsRouter } from "./events.js";
import { exportsRouter } from "./exports.js";
import { invoicePaymentsRouter } from "./invoice-payments.js";
import { invoicesRouter } from "./invoices.js";
import { measurementsRouter } from "./measurements.js";
import { metersRouter } from "./meters.js";
import { plansRouter } from "./plans.js";
import { reportsRouter } from "./reports.js";
import { reservationsRouter } from "./reservations.js";
import { taxRatesRouter } from "./tax-rates.js";
import { testClockRouter } from "./test-clock.js";
import { tokenRouter } from "./token.js";
import { usageRouter } from "./usage.js";
import { webhookEndpointsRouter } from "./webhook-endpoints.js";

export const appRouter = router({
  admin: adminRouter,
  customers: customersRouter,
  contracts: contractsRouter,
  measurements: measurementsRouter,
  meters: metersRouter,
  taxRates: taxRatesRouter,
  coupons: couponsRouter,
  reservations: reservationsRouter,
  usage: usageRouter,
  credits: creditsRouter,
  events: eventsRouter,
  backfills: backfillsRouter,
  invoices: invoicesRouter,
  invoicePayments: invoicePaymentsRouter,
  creditNotes: creditNotesRouter,
  billing: billingRouter,
  webhookEndpoints: webhookEndpointsRouter,
  alerts: alertsRouter,
  entitlements: entitlementsRouter,
  token: tokenRouter,
  testClock: testClockRouter,
  plans: plansRouter,
  auditLog: auditLogRouter,
  reports: reportsRouter,
  exports: exportsRouter,
  collection: collectionRouter,
});
export type AppRouter = typeof appRouter;
