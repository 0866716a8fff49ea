import { describe, expect, it } from "vitest";
import { DomainError } from "../src/domain/errors.js";
import { asMicros } from "../src/domain/money/micros.js";
import { createLogger } from "../src/logger.js";
import type { BillingClaimDoc } from "../src/repositories/billing-claims.js";
import { changeInvoice } from "../src/services/invoices/changes.js";
import { expectError } from "./support/assertions.js";
import { type BillingAccount, billingAccount } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { newId } from "./support/server.js";

/** Drafts (docs/decisions.md, "Invoice life: drafts"): INVOICE_DRAFT_PERIOD of 3 days, no grace period. */
const server = useTestServer({ invoiceDraftMs: 3 * 86_400_000 });

const call = (ref: string, timestamp: string) => ({ ref, name: "api", timestamp, customerAlias: "acme" });

/** Acme, whose "api" events count on the meter "calls", on a contract for January and February 2024 at 2.50 a call. */
async function callsContract(): Promise<{ account: BillingAccount; contractId: string }> {
  const account = await billingAccount(server, { name: "Acme", aliases: ["acme"] });
  await account.post("/meters", { key: "calls", eventName: "api", aggregation: "COUNT" }, 201);
  const contract = await account.contract({
    startDate: "2024-01-01T00:00:00Z",
    endDate: "2024-03-01T00:00:00Z",
    products: [
      {
        displayName: "API",
        catalogProductId: "calls",
        scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
        pricing: { type: "PER_UNIT", price: 2.5 },
      },
    ],
  });
  return { account, contractId: contract.id };
}

async function explained(account: BillingAccount, ref: string) {
  const query = "startTime=2024-01-01T00:00:00Z&endTime=2024-03-01T00:00:00Z&limit=100";
  const { events } = (await server.rest("GET", `/events?${query}`, { token: account.token })).body;
  const id = events.find((event: { ref: string }) => event.ref === ref).id;
  return (await server.rest("GET", `/events/${id}`, { token: account.token })).body.attribution.meters;
}

describe("drafts re-priced by runs", () => {
  it("re-prices a draft with late events, then finalizes it with credits and a number 3 days after due", async () => {
    const { account, contractId } = await callsContract();
    await account.grant(4);
    await account.post("/events", { events: [call("e1", "2024-01-10T00:00:00Z"), call("e2", "2024-01-20T00:00:00Z")] });

    // January is due Feb 1: a draft of 2 calls × 2.50 = 5.00, no credits used, no number.
    expect((await account.run("2024-02-01T00:00:00Z")).invoicesCreated).toBe(1);
    const [drafted] = await account.invoices(contractId);
    expect(drafted).toMatchObject({
      status: "DRAFT",
      number: null,
      amount: 5,
      revenueBreakdown: { subtotal: 5, creditsUsed: 0, total: 5 },
      amountDue: 5,
      finalizedAt: null,
    });
    expect(drafted.lineItems[0]).toMatchObject({ quantity: 2 });
    expect(await account.balance()).toBe(4);

    // A late event counts while January is a draft: 3 calls × 2.50 = 7.50 at the next run.
    await account.post("/events", { events: [call("late", "2024-01-31T23:00:00Z")] });
    expect(await explained(account, "late")).toEqual([{ key: "calls", counted: true }]);
    await account.run("2024-02-02T00:00:00Z");
    const [repriced] = await account.invoices(contractId);
    expect(repriced).toMatchObject({ id: drafted.id, status: "DRAFT", number: null, amount: 7.5, amountDue: 7.5 });
    expect(repriced.lineItems[0]).toMatchObject({ quantity: 3 });

    // Feb 4 = due + 3 days: 4 calls × 2.50 = 10.00, less the 4.00 grant = 6.00, numbered INV-000001.
    await account.post("/events", { events: [call("later", "2024-01-25T00:00:00Z")] });
    await account.run("2024-02-04T00:00:00Z");
    const [finalized] = await account.invoices(contractId);
    expect(finalized).toMatchObject({
      id: drafted.id,
      status: "FINALIZED",
      number: "INV-000001",
      amount: 6,
      revenueBreakdown: { subtotal: 10, creditsUsed: 4, total: 6 },
      billingStatus: "None",
      amountPaid: 0,
      amountDue: 6,
      finalizedAt: expect.any(String),
    });
    expect(finalized.lineItems[0]).toMatchObject({ quantity: 4 });
    expect(await account.balance()).toBe(0);

    // Final now: a later event is explained AFTER_INVOICE and changes nothing.
    await account.post("/events", { events: [call("too-late", "2024-01-15T00:00:00Z")] });
    expect(await explained(account, "too-late")).toEqual([{ key: "calls", counted: false, reason: "AFTER_INVOICE" }]);
    await account.run("2024-02-05T00:00:00Z");
    expect((await account.invoices(contractId))[0]).toEqual(finalized);
  });

  it("a run at an earlier `at` neither re-prices nor finalizes a draft priced later", async () => {
    const { account, contractId } = await callsContract();
    await account.post("/events", { events: [call("e1", "2024-01-10T00:00:00Z")] });
    await account.run("2024-02-02T00:00:00Z");
    await account.post("/events", { events: [call("late", "2024-01-31T23:00:00Z")] });
    await account.run("2024-02-01T12:00:00Z");
    // Still 1 call × 2.50, and a draft.
    expect((await account.invoices(contractId))[0]).toMatchObject({ status: "DRAFT", amount: 2.5 });
  });
});

describe("drafts of a contract another call holds", () => {
  it("are left to the holder while its claim lives, and finalized by the first run after its lease ends", async () => {
    const { account, contractId } = await callsContract();
    await account.post("/events", { events: [call("h1", "2024-01-10T00:00:00Z")] });
    // January is due Feb 1: a draft of 1 call × 2.50, to be finalized from Feb 4.
    expect((await account.run("2024-02-01T00:00:00Z")).invoicesCreated).toBe(1);
    // Another live call holds the contract (it stores and finalizes its invoices itself) for 2 s more.
    const leaseEnds = new Date(Date.now() + 2_000);
    const claim = { _id: contractId, accountId: account.accountId, holder: "another call", at: new Date("2024-02-05") };
    await server.service.db.collection<BillingClaimDoc>("billingClaims").insertOne({ ...claim, expiresAt: leaseEnds });

    await account.runOnce("2024-02-05T00:00:00Z");
    expect((await account.invoices(contractId))[0]).toMatchObject({ status: "DRAFT", amount: 2.5 });

    await new Promise((resolve) => setTimeout(resolve, leaseEnds.getTime() - Date.now() + 50));
    await account.runOnce("2024-02-05T00:00:00Z");
    expect((await account.invoices(contractId))[0]).toMatchObject({ status: "FINALIZED", amount: 2.5 });
  });
});

describe("webhooks of a draft's life", () => {
  it("invoice.created when a run makes the draft, invoice.finalized when it is finalized, each once", async () => {
    const { account, contractId } = await callsContract();
    const endpoint = (
      await account.post(
        "/webhook-endpoints",
        { url: "https://hooks.example.com/billing", eventTypes: ["invoice.created", "invoice.finalized"] },
        201,
      )
    ).endpoint;
    const eventTypes = async () => {
      const path = `/webhook-endpoints/${endpoint.id}/deliveries?limit=100`;
      const { deliveries } = (await server.rest("GET", path, { token: account.token })).body;
      return deliveries.map((delivery: { eventType: string }) => delivery.eventType).sort();
    };
    await account.run("2024-02-01T00:00:00Z");
    expect(await eventTypes()).toEqual(["invoice.created"]);
    await account.run("2024-02-02T00:00:00Z");
    await account.run("2024-02-04T00:00:00Z");
    await account.run("2024-02-05T00:00:00Z");
    expect(await eventTypes()).toEqual(["invoice.created", "invoice.finalized"]);
    expect((await account.invoices(contractId))[0]).toMatchObject({ status: "FINALIZED", number: "INV-000001" });
  });
});

describe("POST /invoices/{invoiceId}/finalize", () => {
  it("finalizes a draft at once, re-priced; a second call is a 409 naming the status", async () => {
    const { account, contractId } = await callsContract();
    await account.post("/events", { events: [call("e1", "2024-01-10T00:00:00Z")] });
    await account.run("2024-02-01T00:00:00Z");
    const [draft] = await account.invoices(contractId);
    await account.post("/events", { events: [call("late", "2024-01-31T23:00:00Z")] });
    const finalized = await server.rest("POST", `/invoices/${draft.id}/finalize`, { token: account.token });
    expect(finalized.status).toBe(200);
    // 2 calls × 2.50 = 5.00.
    expect(finalized.body.invoice).toMatchObject({
      id: draft.id,
      status: "FINALIZED",
      number: "INV-000001",
      amount: 5,
    });
    expect((await server.rest("GET", `/invoices/${draft.id}`, { token: account.token })).body).toEqual(finalized.body);

    const again = await server.rest("POST", `/invoices/${draft.id}/finalize`, { token: account.token });
    expectError(again, 409, "CONFLICT");
    expect(again.body.message).toBe("The invoice is FINALIZED: only a DRAFT invoice can be finalized");
    // Over tRPC too.
    await expect(account.trpc().invoices.finalize.mutate({ invoiceId: draft.id })).rejects.toMatchObject({
      data: { code: "CONFLICT" },
    });
  });

  it("is a 404 for an unknown id and for another account's draft, which stays a draft", async () => {
    const { account, contractId } = await callsContract();
    await account.run("2024-02-01T00:00:00Z");
    const [draft] = await account.invoices(contractId);
    const intruder = await server.newAccount();
    expectError(
      await server.rest("POST", `/invoices/${draft.id}/finalize`, { token: intruder.token }),
      404,
      "NOT_FOUND",
    );
    expectError(await server.rest("POST", `/invoices/${newId()}/finalize`, { token: account.token }), 404, "NOT_FOUND");
    expectError(await server.rest("POST", "/invoices/not-an-id/finalize", { token: account.token }), 404, "NOT_FOUND");
    expect((await account.invoices(contractId))[0]).toMatchObject({ status: "DRAFT", number: null });
  });
});

describe("the invoice's machine, checked by the change itself", () => {
  it("refuses a change the machine does not allow from the status, whatever decided it: 409, no entry", async () => {
    const { account, contractId } = await callsContract();
    await account.post("/events", { events: [call("e1", "2024-01-10T00:00:00Z")] });
    await account.run("2024-02-01T00:00:00Z");
    const [drafted] = await account.invoices(contractId);
    const { repositories } = server.service;
    const invoiceCall = { repositories, accountId: account.accountId, log: createLogger("silent") };
    // A decision that checked nothing: a payment of a draft, a number for a draft.
    const payment = { paymentId: newId(), amount: asMicros(1_000_000), date: new Date() };
    const refusals = [
      {
        change: { kind: "PAYMENT" as const, at: new Date(), payment },
        message: /only a FINALIZED invoice can be paid/,
      },
      {
        change: {
          kind: "NUMBER" as const,
          at: new Date(),
          loggedAt: new Date(),
          totalMicros: asMicros(0),
          priced: {} as never,
        },
        message: /only a FINALIZED invoice can be numbered/,
      },
    ];
    for (const { change, message } of refusals) {
      const error = await changeInvoice(invoiceCall, drafted.id, () => change).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ code: "CONFLICT", message: expect.stringMatching(message) });
    }
    expect(await repositories.invoiceChanges.after(account.accountId, drafted.id)).toEqual([]);
    expect((await account.invoices(contractId))[0]).toEqual(drafted);
  });
});
