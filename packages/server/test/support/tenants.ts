import { billingAccount, committed, monthly } from "./billing.js";
import { newId, type TestServer } from "./server.js";

/** What a tenant holds, and the values another account could send of it. */
export interface Tenant {
  accountId: string;
  token: string;
  customerIds: string[];
  customerName: string;
  externalId: string;
  alias: string;
  contractIds: string[];
  meterIds: string[];
  meterKey: string;
  taxRateIds: string[];
  taxRateCode: string;
  couponIds: string[];
  couponCode: string;
  measurementId: string;
  eventIds: string[];
  eventRefs: string[];
  entryIds: string[];
  invoiceIds: string[];
  creditNoteIds: string[];
  endpointIds: string[];
  deliveryIds: string[];
  alertIds: string[];
  planIds: string[];
  planKey: string;
  migrationIds: string[];
  reservationIds: string[];
  /** The nextCursor of each paged list's first page of one item. */
  cursors: {
    customers: string;
    contracts: string;
    meters: string;
    invoices: string;
    taxRates: string;
    coupons: string;
  };
}

/** The period of every tenant's events. */
export const EVENTS_WINDOW = { startTime: "2024-01-01T00:00:00Z", endTime: "2024-02-01T00:00:00Z" };

export const ids = (items: { id: string }[]) => items.map((item) => item.id);

/**
 * A new account with two of each resource (customers, meters, contracts, events, ledger entries), one measurement,
 * and invoices for January and February 2024. Names, keys and refs carry `label`, so tenants never share one.
 */
export async function newTenant(server: TestServer, label: string): Promise<Tenant> {
  const alias = `alias-${label}`;
  const account = await billingAccount(server, { name: `Co ${label}`, externalId: `ext-${label}`, aliases: [alias] });
  const get = async (path: string) => (await server.rest("GET", path, { token: account.token })).body;
  // First, so that every later change opens a delivery to it (no worker runs here: they stay pending).
  const endpoint = (await account.post("/webhook-endpoints", { url: `https://hooks.example.com/${label}` }, 201))
    .endpoint;
  const customerIds = [account.customerId, await account.newCustomer({ name: `Second ${label}` })];
  const meterKey = `calls-${label}`;
  const meters = [];
  for (const key of [meterKey, `storage-${label}`]) {
    meters.push((await account.post("/meters", { key, eventName: "api_call", aggregation: "COUNT" }, 201)).meter);
  }
  const taxRateCode = `VAT-${label}`;
  const taxRates = [];
  for (const code of [taxRateCode, `CITY-${label}`]) {
    taxRates.push((await account.post("/tax-rates", { code, name: code, rate: 5 }, 201)).taxRate);
  }
  const couponCode = `CPN-${label}`;
  const coupons = [];
  for (const code of [couponCode, `CPN2-${label}`]) {
    const coupon = { code, discount: { type: "PERCENT", value: 5 }, duration: "ONCE" };
    coupons.push((await account.post("/coupons", coupon, 201)).coupon);
  }
  const pricing = { type: "PER_UNIT", price: 1 };
  const usage = { displayName: "API", catalogProductId: meterKey, scheduling: monthly(1), pricing };
  const contracts = [
    await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 10), usage] }),
    await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(2, 10)] }),
  ];
  const eventRefs = [`ref-${label}-1`, `ref-${label}-2`];
  const timestamps = ["2024-01-10T00:00:00Z", "2024-01-11T00:00:00Z"];
  const events = eventRefs.map((ref, i) => ({ ref, name: "api_call", timestamp: timestamps[i], customerAlias: alias }));
  await account.post("/events", { events });
  const measurement = (await account.measure(meterKey, "2024-01-20", 3)).measurement;
  await account.grant(1000);
  await account.run("2024-03-01T00:00:00Z");
  const [firstInvoice] = await account.allInvoices();
  // Credits paid the invoice: a CREDITS note gives 1 of them back (a Grant entry of its own).
  const creditNote = { invoiceId: firstInvoice.id, amount: 1, reason: "OTHER", refund: "CREDITS" };
  const creditNoteIds = [(await account.post("/credit-notes", creditNote, 201)).creditNote.id as string];
  const alert = { customerId: account.customerId, meterKey, thresholds: [1000], period: "DAY" };
  const alertIds = [(await account.post("/alerts", alert, 201)).alert.id as string];
  const planKey = `plan-${label}`;
  const planTerms = {
    products: [{ displayName: "Flat", scheduling: monthly(1), pricing: { type: "FLAT", price: 5 } }],
  };
  const plan = (await account.post("/plans", { key: planKey, name: "Plan", currency: "USD", ...planTerms }, 201)).plan;
  await account.post(`/plans/${plan.id}/versions`, planTerms, 201);
  const migration = { fromVersions: [1], toVersion: 2, effective: "NEXT_CYCLE" };
  const migrationIds = [(await account.post(`/plans/${plan.id}/migrations`, migration, 202)).migration.id as string];
  const reservation = { meterKey, amount: 1, ttlSeconds: 86_400, ref: `res-${label}` };
  const reservationIds = [
    (await account.post(`/customers/${account.customerId}/reservations`, reservation, 201)).reservation.id as string,
  ];
  const firstPageCursor = async (list: string) => (await get(`/${list}?limit=1`)).nextCursor as string;
  return {
    accountId: account.accountId,
    token: account.token,
    customerIds,
    customerName: `Co ${label}`,
    externalId: `ext-${label}`,
    alias,
    contractIds: ids(contracts),
    meterIds: ids(meters),
    meterKey,
    taxRateIds: ids(taxRates),
    taxRateCode,
    couponIds: ids(coupons),
    couponCode,
    measurementId: measurement.id,
    eventIds: ids((await get(`/events?${new URLSearchParams({ ...EVENTS_WINDOW, limit: "1000" })}`)).events),
    eventRefs,
    entryIds: ids(await account.ledger()),
    invoiceIds: ids(await account.allInvoices()),
    creditNoteIds,
    endpointIds: [endpoint.id],
    deliveryIds: ids((await get(`/webhook-endpoints/${endpoint.id}/deliveries?limit=1000`)).deliveries),
    alertIds,
    planIds: [plan.id],
    planKey,
    migrationIds,
    reservationIds,
    cursors: {
      customers: await firstPageCursor("customers"),
      contracts: await firstPageCursor("contracts"),
      meters: await firstPageCursor("meters"),
      invoices: await firstPageCursor("invoices"),
      taxRates: await firstPageCursor("tax-rates"),
      coupons: await firstPageCursor("coupons"),
    },
  };
}

/** Ids, names and keys of a tenant's kind that name nothing stored (no account holds them). */
export const tenantOfNothing = (): Tenant => ({
  accountId: newId(),
  token: "",
  customerIds: [newId()],
  customerName: "Co nobody",
  externalId: "ext-nobody",
  alias: "alias-nobody",
  contractIds: [newId()],
  meterIds: [newId()],
  meterKey: "calls-nobody",
  taxRateIds: [newId()],
  taxRateCode: "VAT-nobody",
  couponIds: [newId()],
  couponCode: "CPN-nobody",
  measurementId: newId(),
  eventIds: [newId()],
  eventRefs: ["ref-nobody"],
  entryIds: [newId()],
  invoiceIds: [newId()],
  creditNoteIds: [newId()],
  endpointIds: [newId()],
  deliveryIds: [newId()],
  alertIds: [newId()],
  planIds: [newId()],
  planKey: "plan-nobody",
  migrationIds: [newId()],
  reservationIds: ["nothing_1"],
  cursors: { customers: "", contracts: "", meters: "", invoices: "", taxRates: "", coupons: "" },
});

/** Every id of a tenant's data. */
export const idsOf = (owner: Tenant) => [
  owner.accountId,
  ...owner.customerIds,
  ...owner.contractIds,
  ...owner.meterIds,
  ...owner.taxRateIds,
  ...owner.couponIds,
  owner.measurementId,
  ...owner.eventIds,
  ...owner.entryIds,
  ...owner.invoiceIds,
  ...owner.creditNoteIds,
  ...owner.endpointIds,
  ...owner.deliveryIds,
  ...owner.alertIds,
  ...owner.planIds,
  ...owner.migrationIds,
  ...owner.reservationIds,
];
