/**
 * What `pnpm demo` stores: three customers on different price models and a month of their usage. Pure and seeded,
 * so a month's data is the same on every run (and every machine).
 */

import { seededRandom } from "@billing/shared";

/** A calendar month in UTC: `2025-10`. */
export interface DemoMonth {
  year: number;
  /** 1–12. */
  month: number;
}

/** The last whole UTC month before `now`. */
export function previousMonth(now: Date): DemoMonth {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return { year: start.getUTCFullYear(), month: start.getUTCMonth() + 1 };
}

/** `2025-10` as a month, or undefined. */
export function parseMonth(text: string): DemoMonth | undefined {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(text);
  return match ? { year: Number(match[1]), month: Number(match[2]) } : undefined;
}

export const monthStart = ({ year, month }: DemoMonth) => new Date(Date.UTC(year, month - 1, 1));
export const monthEnd = ({ year, month }: DemoMonth) => new Date(Date.UTC(year, month, 1));
const daysIn = (month: DemoMonth) => Math.round((monthEnd(month).getTime() - monthStart(month).getTime()) / 86_400_000);

export const METERS = [
  { key: "api-calls", eventName: "api_call", aggregation: "COUNT" },
  { key: "tokens", eventName: "completion", aggregation: "SUM", valueProperty: "tokens" },
  { key: "storage-gb", eventName: "storage_snapshot", aggregation: "MAX", valueProperty: "gb" },
] as const;

const monthly = { duration: { unit: "MONTH", value: 1 }, billingDay: 1 };

/** Each customer: who it is, the products of its contract (one usage price model each), and its day of usage. */
export const CUSTOMERS = [
  {
    customer: { name: "Northwind Analytics", externalId: "northwind", aliases: ["northwind-prod"] },
    products: [
      {
        displayName: "API calls",
        catalogProductId: "api-calls",
        scheduling: monthly,
        pricing: { type: "PER_UNIT", price: 0.01 },
      },
      { displayName: "Platform fee", scheduling: monthly, pricing: { type: "FLAT", price: 99 } },
    ],
    grant: undefined,
  },
  {
    customer: { name: "Blue Yonder AI", externalId: "blue-yonder", aliases: ["blue-yonder-api"] },
    products: [
      {
        displayName: "Model tokens",
        catalogProductId: "tokens",
        scheduling: monthly,
        pricing: {
          type: "GRADUATED",
          tiers: [
            { upTo: 100_000, unitPrice: 0.00004 },
            { upTo: 1_000_000, unitPrice: 0.00002 },
            { upTo: null, unitPrice: 0.00001 },
          ],
        },
      },
    ],
    grant: undefined,
  },
  {
    customer: { name: "Contoso Storage", externalId: "contoso", aliases: ["contoso-eu"] },
    products: [
      {
        displayName: "Storage (peak GB)",
        catalogProductId: "storage-gb",
        scheduling: monthly,
        pricing: {
          type: "VOLUME",
          tiers: [
            { upTo: 100, unitPrice: 0.25 },
            { upTo: 1000, unitPrice: 0.2, flatPrice: 5 },
            { upTo: null, unitPrice: 0.15, flatPrice: 25 },
          ],
        },
      },
    ],
    // Credits that pay part of its invoice, so the ledger has something to show.
    grant: { amount: 20, type: "Grant", effectiveAt: "2000-01-01T00:00:00Z" },
  },
] as const;

export interface DemoEvent {
  ref: string;
  name: string;
  customerAlias: string;
  timestamp: string;
  /** Event data values are strings, as the API takes them; meters read numbers out of them. */
  data: Record<string, string>;
}

/**
 * The month's events of every customer, in time order within each: weekday-heavy API traffic for Northwind,
 * completions of varying size for Blue Yonder, one storage snapshot a day, slowly growing, for Contoso.
 */
export function demoEvents(month: DemoMonth): DemoEvent[] {
  const random = seededRandom(month.year * 100 + month.month);
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const events: DemoEvent[] = [];
  const prefix = `${month.year}-${String(month.month).padStart(2, "0")}`;
  for (let day = 0; day < daysIn(month); day += 1) {
    const date = new Date(monthStart(month).getTime() + day * 86_400_000);
    const weekend = date.getUTCDay() === 0 || date.getUTCDay() === 6;
    const at = (seconds: number) => new Date(date.getTime() + seconds * 1000).toISOString();
    const add = (kind: string, index: number, event: Omit<DemoEvent, "ref">) =>
      events.push({ ref: `demo-${prefix}-${kind}-${day + 1}-${index}`, ...event });
    for (let index = 0, calls = weekend ? between(5, 15) : between(30, 60); index < calls; index += 1) {
      add("call", index, {
        name: "api_call",
        customerAlias: "northwind-prod",
        timestamp: at(between(0, 86_399)),
        data: { endpoint: ["/v1/reports", "/v1/dashboards", "/v1/exports"][between(0, 2)] as string, status: "200" },
      });
    }
    for (let index = 0, completions = between(8, 20); index < completions; index += 1) {
      add("completion", index, {
        name: "completion",
        customerAlias: "blue-yonder-api",
        timestamp: at(between(0, 86_399)),
        data: { tokens: String(between(500, 6000)), model: random() < 0.7 ? "small" : "large" },
      });
    }
    add("storage", 0, {
      name: "storage_snapshot",
      customerAlias: "contoso-eu",
      timestamp: at(43_200),
      data: { gb: (120 + day * 2 + between(0, 9) / 10).toFixed(1) },
    });
  }
  return events;
}
