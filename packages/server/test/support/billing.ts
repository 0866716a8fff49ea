import { toMicros } from "@billing/shared";
import type { RestResponse, TestServer } from "./server.js";

/**
 * A customer and a billing helper bound to one new account. `customer`: fields of that first customer; `account`:
 * fields of the account (`testClock` makes it a test account).
 */
export async function billingAccount(
  server: TestServer,
  customer: Record<string, unknown> = {},
  account: Record<string, unknown> = {},
) {
  const { token, accountId } = await server.newAccount(undefined, account);
  const post = async (path: string, body: unknown, expected = 200) => {
    const response = await server.rest("POST", path, { token, body });
    if (response.status !== expected) throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const get = async (path: string) => {
    const response = await server.rest("GET", path, { token });
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const customerId = (await post("/customers", { name: "Billed Co", ...customer }, 201)).customer.id as string;
  const ledger = async (ofCustomer = customerId) =>
    (await get(`/credits?customerId=${ofCustomer}&limit=1000`)).entries as any[];
  /**
   * A billing run as of `at` to its end: calls again while `hasMore` (a loaded machine can stop a call at its 3 s
   * time budget), adding up what the calls made; the last call's answer otherwise.
   */
  const run = async (at: string) => {
    const calls = [];
    const stalled = stallGuard(at);
    for (let more = true; more; ) {
      const call = (await post("/billing-runs", { at })).run;
      calls.push(call);
      more = call.hasMore;
      if (more) stalled(call);
    }
    return {
      ...calls.at(-1),
      contractsBilled: calls.reduce((sum, call) => sum + call.contractsBilled, 0),
      invoicesCreated: calls.reduce((sum, call) => sum + call.invoicesCreated, 0),
      invoiceIds: calls.flatMap((call) => call.invoiceIds),
      failures: calls.flatMap((call) => call.failures),
    };
  };
  const invoices = async (contractId: string) =>
    (await get(`/invoices?contractId=${contractId}&limit=1000`)).invoices as any[];
  return {
    token,
    accountId,
    customerId,
    post,
    /** Another customer of the same account; returns its id. */
    newCustomer: async (fields: Record<string, unknown>) =>
      (await post("/customers", fields, 201)).customer.id as string,
    contract: async (fields: Record<string, unknown>) =>
      (await post("/contracts", { customerId, name: "Plan", ...fields }, 201)).contract,
    deleteContract: (contractId: string) => server.rest("DELETE", `/contracts/${contractId}`, { token }),
    /** One call of POST /billing-runs: it may stop at its work limits (`hasMore`). */
    runOnce: async (at: string) => (await post("/billing-runs", { at })).run,
    run,
    /** POST /invoices/preview, unchecked: the test reads the status. */
    preview: (body: unknown): Promise<RestResponse> => server.rest("POST", "/invoices/preview", { token, body }),
    invoices,
    /** A billing run as of `at` (run), then the contract's invoices. */
    invoicesAsOf: async (contractId: string, at: string) => {
      await run(at);
      return invoices(contractId);
    },
    /** Every invoice of the account. */
    allInvoices: async () => (await get("/invoices?limit=1000")).invoices as any[],
    measure: (meterId: string, day: string, value: number, ofCustomer = customerId) => {
      const [year, month, date] = day.split("-").map(Number);
      return post("/measurements", { customerId: ofCustomer, meterId, usageDate: { year, month, day: date }, value });
    },
    /**
     * A grant effective from 1970 unless `terms` say otherwise: billing tests bill past cycles, and a grant pays only
     * invoices issued from its `effectiveAt` on (default: now).
     */
    grant: (amount: number, ofCustomer = customerId, terms: Record<string, unknown> = {}) =>
      post(
        "/credits",
        { customerId: ofCustomer, amount, type: "Grant", effectiveAt: "1970-01-01T00:00:00Z", ...terms },
        201,
      ),
    ledger,
    /** The balance after the last ledger entry (0 for an empty ledger). */
    balance: async (ofCustomer = customerId) => (await ledger(ofCustomer)).at(-1)?.balanceAfterEntry ?? 0,
    trpc: () => server.trpc(token),
  };
}
export type BillingAccount = Awaited<ReturnType<typeof billingAccount>>;

/**
 * Calls POST /billing-runs until it answers hasMore: false (a loaded machine can stop a call at its time budget);
 * every call's answer, in order.
 */
export async function runToEnd(account: BillingAccount, at: string) {
  const calls = [];
  const stalled = stallGuard(at);
  for (;;) {
    const run = await account.runOnce(at);
    calls.push(run);
    if (!run.hasMore) return calls;
    stalled(run);
  }
}

/**
 * Fails a loop of billing calls that answer `hasMore` without making anything, 50 in a row (a run that never ends).
 * Progress, not calls, is counted: a loaded machine stops each call at its 3 s budget after an invoice or two, so a
 * backlog of a hundred invoices may take more than 50 calls (the cause of billing.boundaries' flaky backlogs); a call
 * that waits on a concurrent caller's claims makes nothing for a call or two.
 */
function stallGuard(at: string) {
  let idle = 0;
  return (call: { invoicesCreated: number; failures: unknown[] }) => {
    idle = call.invoicesCreated > 0 || call.failures.length > 0 ? 0 : idle + 1;
    if (idle === 50) throw new Error(`billing as of ${at} still has more after 50 calls that made nothing`);
  };
}

/** The ids of the invoices a run to its end made. */
export const invoicesMadeBy = (calls: { invoiceIds: string[] }[]) => calls.flatMap((call) => call.invoiceIds);

/** A schedule of `months` months on `billingDay`. */
export const everyMonths = (months: number, billingDay: number) => ({
  duration: { unit: "MONTH", value: months },
  billingDay,
});
export const monthly = (billingDay: number) => everyMonths(1, billingDay);

/** A product priced by `pricing` on the usage of the meter `meter` (its `catalogProductId`), monthly on the 1st. */
export const usageProduct = (displayName: string, meter: string, pricing: Record<string, unknown>) => ({
  displayName,
  catalogProductId: meter,
  scheduling: monthly(1),
  pricing,
});

/** A product committing to `units` at `price` per cycle, monthly on `billingDay` unless `extra` says otherwise. */
export const committed = (units: number, price: number, billingDay = 1, extra: Record<string, unknown> = {}) => ({
  displayName: "Seats",
  scheduling: monthly(billingDay),
  commitment: { units, price },
  ...extra,
});

/** Each invoice's billing cycle as [start, end] timestamps. */
export const cyclesOf = (invoices: { billingCycle: { startTime: string; endTime: string } }[]) =>
  invoices.map(({ billingCycle }) => [billingCycle.startTime, billingCycle.endTime]);

/** A contract's term from the UTC midnight of `startDay` to that of `endDay`: between("2024-01-01", "2024-03-01"). */
export const between = (startDay: string, endDay: string) => ({
  startDate: `${startDay}T00:00:00Z`,
  endDate: `${endDay}T00:00:00Z`,
});

/** UTC midnight of a day, as the API writes it: day("2024-02-29") = "2024-02-29T00:00:00.000Z". */
export const day = (date: string) => `${date}T00:00:00.000Z`;

/** Sum of amounts in exact micro-units (floating-point sums of decimals drift). */
export const sumMicros = (amounts: number[]) => amounts.reduce((total, amount) => total + toMicros(amount), 0);

/**
 * Three monthly products, one of each line shape a document shows: "API calls" (`calls`) graduated, 1,000 at 0.01
 * then 0.005 with a 2.00 flat fee; "Storage" (`gb`) in packages of 10 at 5.00; "Platform" flat at 49.99.
 */
export const TIERED_PACKAGED_FLAT = [
  {
    displayName: "API calls",
    catalogProductId: "calls",
    scheduling: monthly(1),
    pricing: {
      type: "GRADUATED",
      tiers: [
        { upTo: 1000, unitPrice: 0.01 },
        { upTo: null, unitPrice: 0.005, flatPrice: 2 },
      ],
    },
  },
  {
    displayName: "Storage",
    catalogProductId: "gb",
    scheduling: monthly(1),
    pricing: { type: "PACKAGE", price: 5, packageSize: 10 },
  },
  { displayName: "Platform", scheduling: monthly(1), pricing: { type: "FLAT", price: 49.99 } },
];
