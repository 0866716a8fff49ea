import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { type BillingAccount, billingAccount, committed } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { ADMIN_TOKEN, startTestServer } from "./support/server.js";

/**
 * An invoice is due its payment terms after it is issued (finalized), never before (issue 40): the customer's
 * END_OF_MONTH, else the customer's `netTermsDays`, else the account's (default 30).
 */
const server = useTestServer();

const DAY_MS = 86_400_000;
const plusDays = (at: string, days: number) => new Date(Date.parse(at) + days * DAY_MS).toISOString();

/** The invoice of August 2026 among a contract's. */
const augustOf = async (account: BillingAccount, contractId: string) =>
  (await account.invoices(contractId)).find((invoice) => invoice.billingCycle.startTime.startsWith("2026-08-01"));

/** August 2026's invoice of a monthly 10.00 contract, made by a run at Nov 2, 2026: issued then. */
async function augustBilledInNovember(account: BillingAccount) {
  const contract = await account.contract({ startDate: "2026-08-01T00:00:00Z", products: [committed(1, 10)] });
  await account.run("2026-11-02T00:00:00Z");
  return augustOf(account, contract.id);
}

const setAccountTerms = async (account: BillingAccount, netTermsDays: number | null) => {
  const response = await server.rest("PATCH", `/admin/accounts/${account.accountId}`, {
    token: ADMIN_TOKEN,
    body: { netTermsDays },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.account;
};

describe("due dates", () => {
  it("count 30 days from the issue date by default: August billed on Nov 2 is due Dec 2, not Oct 1", async () => {
    const account = await billingAccount(server);
    const august = await augustBilledInNovember(account);
    expect(august.billingCycle.startTime).toBe("2026-08-01T00:00:00.000Z");
    // Issued by the run at Nov 2, 2026; Nov 2 + 30 days = Dec 2. The cycle ended Sep 1: Sep 1 + 30 = Oct 1 was before.
    expect(august.finalizedAt).toBe("2026-11-02T00:00:00.000Z");
    expect(august.dueDate).toBe("2026-12-02T00:00:00.000Z");
    expect(august.overdue).toBe(false);
  });

  it("follow the account's netTermsDays, then the customer's, then the customer's END_OF_MONTH", async () => {
    const account = await billingAccount(server);
    expect(
      (await server.rest("GET", `/admin/accounts/${account.accountId}`, { token: ADMIN_TOKEN })).body,
    ).toMatchObject({ account: { netTermsDays: 30 } });
    expect(await setAccountTerms(account, 15)).toMatchObject({ netTermsDays: 15 });
    // Nov 2 + 15 days = Nov 17.
    expect((await augustBilledInNovember(account)).dueDate).toBe("2026-11-17T00:00:00.000Z");

    const dueOnIssue = await account.newCustomer({ name: "Due on issue", netTermsDays: 0 });
    const onIssue = await account.contract({
      customerId: dueOnIssue,
      startDate: "2026-08-01T00:00:00Z",
      products: [committed(1, 10)],
    });
    const endOfMonth = await account.newCustomer({ name: "End of month", dueDays: "END_OF_MONTH", netTermsDays: 5 });
    const monthEnd = await account.contract({
      customerId: endOfMonth,
      startDate: "2026-08-01T00:00:00Z",
      products: [committed(1, 10)],
    });
    await account.run("2026-11-02T00:00:00Z");
    // 0 days: due at its issue, Nov 2. END_OF_MONTH wins over the customer's 5 days: Nov 30.
    expect((await augustOf(account, onIssue.id)).dueDate).toBe("2026-11-02T00:00:00.000Z");
    expect((await augustOf(account, monthEnd.id)).dueDate).toBe("2026-11-30T00:00:00.000Z");

    // null gives the default back.
    expect(await setAccountTerms(account, null)).toMatchObject({ netTermsDays: 30 });
  });

  it("refuse terms outside 0..365 with 400 naming the field", async () => {
    const account = await billingAccount(server);
    const tooLong = await server.rest("PATCH", `/admin/accounts/${account.accountId}`, {
      token: ADMIN_TOKEN,
      body: { netTermsDays: 366 },
    });
    expectError(tooLong, 400, "BAD_REQUEST");
    expect(tooLong.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["netTermsDays"]);
    const negative = await server.rest("POST", "/customers", {
      token: account.token,
      body: { name: "Negative", netTermsDays: -1 },
    });
    expectError(negative, 400, "BAD_REQUEST");
    expect(negative.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["netTermsDays"]);
  });
});

describe("a draft finalized later", () => {
  it("is due its terms after its finalization, whatever it showed as a draft", async () => {
    // Drafts for ten years: the run leaves August a draft, which a request finalizes now.
    const drafting = await startTestServer({ invoiceDraftMs: 10 * 365 * DAY_MS });
    try {
      const account = await billingAccount(drafting);
      const contract = await account.contract({ startDate: "2026-08-01T00:00:00Z", products: [committed(1, 10)] });
      await account.run("2026-10-02T00:00:00Z");
      const draft = await augustOf(account, contract.id);
      expect(draft.status).toBe("DRAFT");
      // Priced by the run at Oct 2: as if issued then, Oct 2 + 30 = Nov 1.
      expect(draft.dueDate).toBe("2026-11-01T00:00:00.000Z");
      const finalized = await drafting.rest("POST", `/invoices/${draft.id}/finalize`, { token: account.token });
      expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
      const { invoice } = finalized.body;
      expect(invoice.status).toBe("FINALIZED");
      expect(invoice.dueDate).toBe(plusDays(invoice.finalizedAt, 30));
      expect(invoice.overdue).toBe(false);
    } finally {
      await drafting.close();
    }
  });
});
