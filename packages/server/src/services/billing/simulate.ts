import {
  type InvoiceDraft,
  type InvoiceSimulation,
  type InvoiceSimulationRequest,
  MAX_SIMULATED_CYCLES,
  MAX_SIMULATION_UNITS,
} from "@billing/shared";
import { billingNow } from "../../billing-clock.js";
import type { ContractInMicros } from "../../domain/billing/contract.js";
import { startOfUtcDay } from "../../domain/billing/cycles.js";
import { usageByCharge, usageWindows } from "../../domain/billing/invoice.js";
import type { InvoiceDraftInMicros } from "../../domain/billing/pipeline.js";
import { pricedTiersOf, type SimulationWork, simulationWork } from "../../domain/billing/simulation.js";
import { billedPlan } from "../../domain/contracts/billed.js";
import { badRequest, conflict, notFound } from "../../domain/errors.js";
import { DEFAULT_CURRENCY } from "../../domain/money/currency.js";
import { usageToRead } from "../../domain/usage/reads.js";
import { termsInMicros } from "../../presenters/contracts.js";
import { presentInvoiceDraft, simulationTotals } from "../../presenters/invoices.js";
import type { Repositories } from "../../repositories/index.js";
import { couponsOf, readContract } from "../contract-reads.js";
import { taxTermsOf } from "../tax-terms.js";
import { readUsageWindows, usageReader } from "../usage.js";
import { callTimeBudget } from "../work-budget.js";
import { paymentTermsOf } from "./invoice-basis.js";
import { priceBasis } from "./price-cycle.js";

/** Finalized invoices summed into `actualTotal` (at most): a customer has a few per cycle. */
export const MAX_ACTUAL_INVOICES = 1_000;

/** The id a contract simulated from terms alone carries while priced (invoices need one); never answered. */
const NO_CONTRACT_ID = "0".repeat(24);

/** The period asked: after its start, and past (a simulation prices stored usage, which the future has none of). */
function checkPeriod(startDate: Date, endDate: Date, now: Date) {
  if (endDate <= startDate) {
    throw badRequest("endDate must be after startDate", [{ path: "endDate", message: "must be after startDate" }]);
  }
  if (endDate > now) {
    throw badRequest(`endDate must not be later than now (${now.toISOString()}): a simulation prices stored usage`, [
      { path: "endDate", message: "is in the future" },
    ]);
  }
}

/**
 * The contract whose terms are simulated: the customer's contract with the terms given replacing its own (each of
 * `products`, `productGroups` given replaces the contract's), or, without `contractId`, the terms given alone as a
 * contract covering the period, prorated (a period cut mid-cycle is billed for its days).
 */
async function simulatedContract(
  repositories: Repositories,
  accountId: string,
  customerId: string,
  request: InvoiceSimulationRequest,
  now: Date,
): Promise<ContractInMicros> {
  const { contractId, products, productGroups } = request;
  const terms = termsInMicros({ ...(products && { products }), ...(productGroups && { productGroups }) });
  if (contractId !== undefined) {
    const contract = await readContract(repositories, accountId, contractId);
    if (!contract) throw notFound("Contract");
    if (contract.customerId !== customerId) {
      throw badRequest("contractId must name a contract of the customer", [
        { path: "contractId", message: "is a contract of another customer" },
      ]);
    }
    return { ...contract, ...terms };
  }
  // Terms given alone bill in the account's default currency, as a contract created now without one would.
  const currency = (await repositories.accounts.get(accountId))?.defaultCurrency ?? DEFAULT_CURRENCY;
  if (!products?.length && !productGroups?.length) {
    throw badRequest("Without contractId, products or productGroups say which terms to simulate", [
      { path: "products", message: "required without contractId (or productGroups)" },
    ]);
  }
  return {
    id: NO_CONTRACT_ID,
    customerId,
    name: "Simulation",
    startDate: request.startDate,
    endDate: request.endDate,
    status: "Active",
    shouldProRateInvoices: true,
    autoRenewContract: false,
    renewals: 0,
    version: 1,
    currency,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    ...terms,
  };
}

/** A simulated invoice as answered: without a contract's id when the terms were simulated alone. */
const presentSimulated = (invoice: InvoiceDraft, simulatedAlone: boolean) => {
  if (!simulatedAlone) return invoice;
  const { contractId: _none, ...rest } = invoice;
  return rest;
};

/**
 * A simulation's bounds besides its input's (MAX_SIMULATED_CYCLES, MAX_SIMULATION_UNITS): its time, as a billing run's
 * (RUN_LIMITS.timeBudgetMs), and how often it lets other calls run (every `unitsPerTurn` units of its work).
 */
export const SIMULATION_LIMITS = { timeBudgetMs: 10_000, unitsPerTurn: 1_000 };
export type SimulationLimits = typeof SIMULATION_LIMITS;

/** Which field of the request gave the terms: the one an over-budget answer names beside `endDate`. */
const termsField = ({ products, productGroups, contractId }: InvoiceSimulationRequest) =>
  products?.length ? "products" : productGroups?.length ? "productGroups" : contractId ? "contractId" : "products";

/** 400 before anything is read when the simulation would cost more than MAX_SIMULATION_UNITS. */
function checkWork(work: SimulationWork, request: InvoiceSimulationRequest) {
  if (work.units <= MAX_SIMULATION_UNITS) return;
  const figures =
    `${work.pricedTiers.toLocaleString("en")} tiers priced (cycles × prices × tiers) and ` +
    `${work.usageDays.toLocaleString("en")} days of usage read (${work.meters} meters × days` +
    `${work.aliases > 1 ? ` × ${work.aliases} aliases` : ""})`;
  const message = `at most ${MAX_SIMULATION_UNITS.toLocaleString("en")} units of work per simulation`;
  throw badRequest(
    `The simulation would cost ${work.units.toLocaleString("en")} units of work, ${figures}: ${message} ` +
      "(MAX_SIMULATION_UNITS); simulate a shorter period or fewer products",
    [
      { path: "endDate", message },
      { path: termsField(request), message },
    ],
  );
}

/**
 * What the terms would have charged the customer over [startDate, endDate) from the usage and measurements stored
 * now: the invoices a billing run at `endDate` would have made of the cycles whose first covered day falls in the
 * period, each priced by the billing pipeline, no credits applied, stored nowhere; and what the customer's finalized
 * invoices of those cycles charged (before credits). At most MAX_SIMULATED_CYCLES invoices (400 on endDate beyond)
 * and MAX_SIMULATION_UNITS units of work (400), both counted before any usage is read; each meter's usage is read once
 * for all the cycles, and each cycle priced once from it. Past its time budget (SIMULATION_LIMITS) it stops, 409.
 */
export async function simulateInvoices(
  repositories: Repositories,
  accountId: string,
  request: InvoiceSimulationRequest,
  {
    now = billingNow(accountId),
    stop,
    limits = SIMULATION_LIMITS,
  }: { now?: Date; stop?: AbortSignal; limits?: SimulationLimits } = {},
): Promise<InvoiceSimulation> {
  const budget = callTimeBudget(limits, stop, {
    call: "simulation",
    tooMuch: "the usage stored is too much to price at once: simulate a shorter period or fewer products",
    path: "endDate",
    verb: "simulated",
  });
  const startDate = new Date(request.startDate);
  const endDate = new Date(request.endDate);
  checkPeriod(startDate, endDate, now);
  const customerId = await repositories.customers.idOf(accountId, request.customerId);
  if (customerId === undefined) throw notFound("Customer");
  const simulated = await simulatedContract(repositories, accountId, customerId, request, now);
  const { contract, invoices } = billedPlan(simulated, endDate);
  const firstDay = startOfUtcDay(new Date(simulated.startDate));
  const cycles = invoices.filter((cycle) => {
    const coveredFrom = Math.max(cycle.start.getTime(), firstDay.getTime());
    return coveredFrom >= startDate.getTime() && cycle.readyAt <= endDate;
  });
  if (cycles.length > MAX_SIMULATED_CYCLES) {
    throw badRequest(`The period holds ${cycles.length} cycles: at most ${MAX_SIMULATED_CYCLES} per simulation`, [
      { path: "endDate", message: `the period holds more than ${MAX_SIMULATED_CYCLES} cycles` },
    ]);
  }
  const priced: InvoiceDraftInMicros[] = [];
  if (contract) {
    const windows = cycles.map((cycle) => usageWindows(contract, cycle));
    const reader = usageReader(repositories, accountId, contract.customerId, stop);
    checkWork(simulationWork(cycles, usageToRead(windows.flat(2)), (await reader.aliases()).length), request);
    const paymentTerms = await paymentTermsOf(repositories, accountId, contract);
    // Each meter read once for all the cycles, in a few reads; the budget checked before each and spent after it.
    const values = await readUsageWindows(reader, windows.flat(2), {
      beforeRead: budget.check,
      afterRead: budget.spend,
    });
    // The rates all cycles' charges name, read once: each cycle taxes by the codes of its own lines, and a code that
    // names no rate is a 409 either way.
    const tax = await taxTermsOf(
      repositories,
      accountId,
      contract,
      cycles.flatMap((cycle) => cycle.charges),
    );
    const coupons = await couponsOf(repositories, accountId, contract);
    for (const [index, cycle] of cycles.entries()) {
      const usage = usageByCharge(windows[index] ?? [], (window) => values.get(window) ?? 0n);
      const basis = { contract, cycle, usage, issuedAt: cycle.dueAt, paymentTerms, tax, coupons };
      priced.push(await priceBasis(repositories, accountId, basis, "none"));
      await budget.spend(cycle.charges.reduce((sum, charge) => sum + pricedTiersOf(charge), 0));
    }
  }
  const from = cycles[0] && cycles[0].start < startDate ? cycles[0].start : startDate;
  const scope = request.contractId !== undefined ? { contractId: simulated.id } : { customerId };
  const actual = await repositories.invoices.finalizedChargesMicros(
    accountId,
    scope,
    from,
    endDate,
    MAX_ACTUAL_INVOICES + 1,
  );
  if (actual.length > MAX_ACTUAL_INVOICES) {
    throw conflict(
      `The customer has more than ${MAX_ACTUAL_INVOICES} finalized invoices in the period: ` +
        "give contractId or a shorter period",
    );
  }
  const simulatedAlone = request.contractId === undefined;
  return {
    invoices: priced.map((invoice) => presentSimulated(presentInvoiceDraft(invoice), simulatedAlone)),
    currency: simulated.currency,
    ...simulationTotals(
      priced.map((invoice) => invoice.amountMicros),
      actual.filter(({ currency }) => currency === simulated.currency).map(({ chargesMicros }) => chargesMicros),
    ),
  };
}
