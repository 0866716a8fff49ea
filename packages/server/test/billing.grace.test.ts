import { describe, expect, it } from "vitest";
import { type BillingAccount, billingAccount, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

// The service's default grace period: one hour.
const server = useTestServer({ billingGraceMs: 60 * 60_000 });

const call = (ref: string, timestamp: string) => ({ ref, name: "api", timestamp, customerAlias: "acme" });

const JANUARY_AND_FEBRUARY = { startDate: "2024-01-01T00:00:00Z", endDate: "2024-03-01T00:00:00Z" };

/** A billing account whose customer Acme sends events as "acme", and a meter "calls" counting its "api" events. */
async function callsAccount() {
  const account = await billingAccount(server, { name: "Acme", aliases: ["acme"] });
  await account.post("/meters", { key: "calls", eventName: "api", aggregation: "COUNT" }, 201);
  return account;
}

/** The meters' verdicts on the account's event `ref` (GET /events/{eventId}). */
async function explain(account: BillingAccount, ref: string) {
  const query = "startTime=2024-01-01T00:00:00Z&endTime=2024-03-01T00:00:00Z&limit=100";
  const { events } = (await server.rest("GET", `/events?${query}`, { token: account.token })).body;
  const id = events.find((event: { ref: string }) => event.ref === ref).id;
  return (await server.rest("GET", `/events/${id}`, { token: account.token })).body.attribution.meters;
}

describe("grace period and events after the invoice", () => {
  it(
    "an arrears cycle waits an hour for late events; events for an invoiced period are stored, " +
      "billed on the next invoice as late usage, explained",
    async () => {
      const account = await callsAccount();
      const contract = await account.contract({
        ...JANUARY_AND_FEBRUARY,
        products: [
          {
            displayName: "API",
            catalogProductId: "calls",
            scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
            pricing: { type: "PER_UNIT", price: 1 },
          },
        ],
      });
      await account.post("/events", {
        events: [call("e1", "2024-01-10T00:00:00Z"), call("e2", "2024-01-20T00:00:00Z")],
      });

      const early = await account.run("2024-02-01T00:59:59Z");
      expect(early.invoicesCreated).toBe(0); // January ended 59 minutes ago: within the grace period
      await account.post("/events", { events: [call("late", "2024-01-31T23:50:00Z")] });
      expect((await account.run("2024-02-01T01:00:00Z")).invoicesCreated).toBe(1);
      const [january] = await account.invoices(contract.id);
      expect(january.lineItems[0]).toMatchObject({ quantity: 3, revenueBreakdown: { total: 3 } }); // e1, e2, late × 1

      await account.post("/events", {
        events: [call("too-late", "2024-01-15T00:00:00Z"), call("feb", "2024-02-10T00:00:00Z")],
      });
      expect(await explain(account, "too-late")).toEqual([{ key: "calls", counted: false, reason: "AFTER_INVOICE" }]);
      expect(await explain(account, "late")).toEqual([{ key: "calls", counted: true }]);

      await account.run("2024-03-01T01:00:00Z");
      const [januaryAgain, february] = await account.invoices(contract.id);
      expect(januaryAgain).toEqual(january); // an issued invoice never changes
      expect(february.lineItems[0]).toMatchObject({ quantity: 1, revenueBreakdown: { total: 1 } }); // only "feb"
      // "too-late" is January's late usage: February's invoice carries it (lateUsage NEXT_INVOICE, the default).
      expect(february.lineItems.slice(1)).toEqual([
        expect.objectContaining({
          kind: "LATE_USAGE",
          quantity: 1,
          revenueBreakdown: expect.objectContaining({ total: 1 }),
        }),
      ]);
      expect(await explain(account, "feb")).toEqual([{ key: "calls", counted: true }]);

      // An alias change moves attribution from now on; it never rewrites an issued invoice.
      expect(
        (
          await server.rest("PATCH", `/customers/${account.customerId}`, {
            token: account.token,
            body: { aliases: ["acme-renamed"] },
          })
        ).status,
      ).toBe(200);
      expect(await explain(account, "feb")).toEqual([{ key: "calls", counted: false, reason: "NO_CUSTOMER" }]);
      expect(await account.invoices(contract.id)).toEqual([januaryAgain, february]);
    },
  );

  it("explains an event after a group's invoice as AFTER_INVOICE (the group's line names no product)", async () => {
    const account = await callsAccount();
    const contract = await account.contract({
      ...JANUARY_AND_FEBRUARY,
      productGroups: [
        {
          displayName: "Bundle",
          baseAmount: 10,
          commitment: { units: 100, price: 0.5, scheduling: monthly(1) },
          products: [{ displayName: "API", catalogProductId: "calls" }],
        },
      ],
    });
    await account.post("/events", { events: [call("g1", "2024-01-10T00:00:00Z"), call("g2", "2024-01-11T00:00:00Z")] });
    expect((await account.run("2024-02-01T01:00:00Z")).invoicesCreated).toBe(1);
    const [january] = await account.invoices(contract.id);
    // 10 base + 100 committed units × 0.50 = 60.00; the group's one line shows the 2 events it counted.
    expect(january.lineItems).toMatchObject([{ kind: "PRODUCT_GROUP", quantity: 2 }]);
    expect(january.lineItems[0].catalogProductId).toBeUndefined();
    expect(january.revenueBreakdown.total).toBe(60);

    await account.post("/events", {
      events: [call("g-late", "2024-01-20T00:00:00Z"), call("g-feb", "2024-02-03T00:00:00Z")],
    });
    expect(await explain(account, "g1")).toEqual([{ key: "calls", counted: true }]);
    expect(await explain(account, "g-late")).toEqual([{ key: "calls", counted: false, reason: "AFTER_INVOICE" }]);
    expect(await explain(account, "g-feb")).toEqual([{ key: "calls", counted: true }]);
  });
});
