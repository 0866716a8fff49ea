import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { billingAccount, committed } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/** GET /invoices filtered on the life (docs/decisions.md, "Invoice life"): drafts for 3 days. */
const server = useTestServer({ invoiceDraftMs: 3 * 86_400_000 });

/**
 * Two customers, a contract of 10.00 a month each from Jan 2024, billed at Mar 1: January is finalized (due Feb 1,
 * final from Feb 4), February a draft (final from Mar 4). Owing pays January from nothing: 10.00 due, overdue (its
 * due date, Mar 2 2024, is past). Credited has a 100.00 grant: January is paid by credits, total 0, not overdue.
 */
async function twoCustomers() {
  const account = await billingAccount(server, { name: "Owing" });
  const credited = await account.newCustomer({ name: "Credited" });
  await account.grant(100, credited);
  const owing = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 10)] });
  const paid = await account.post(
    "/contracts",
    { customerId: credited, name: "Plan", startDate: "2024-01-01T00:00:00Z", products: [committed(1, 10)] },
    201,
  );
  await account.run("2024-03-01T00:00:00Z");
  const [owingJan, owingFeb] = await account.invoices(owing.id);
  const [creditedJan, creditedFeb] = await account.invoices(paid.contract.id);
  expect([owingJan, owingFeb, creditedJan, creditedFeb].map((invoice) => [invoice.status, invoice.amountDue])).toEqual([
    ["FINALIZED", 10],
    ["DRAFT", 10],
    ["FINALIZED", 0],
    ["DRAFT", 10],
  ]);
  expect([owingJan.overdue, creditedJan.overdue]).toEqual([true, false]);
  return { account, credited, ids: { owingJan, owingFeb, creditedJan, creditedFeb } };
}

describe("GET /invoices filtered on the invoice's life", () => {
  it("filters by status, billingStatus and overdue, alone, together and with customerId; totals match", async () => {
    const { account, credited, ids } = await twoCustomers();
    const listed = async (query: string) => {
      const response = await server.rest("GET", `/invoices?${query}`, { token: account.token });
      expect(response.status, query).toBe(200);
      expect(response.body.total, query).toBe(response.body.invoices.length);
      return response.body.invoices.map((invoice: { id: string }) => invoice.id).sort();
    };
    const sorted = (...invoices: { id: string }[]) => invoices.map((invoice) => invoice.id).sort();
    const { owingJan, owingFeb, creditedJan, creditedFeb } = ids;
    expect(await listed("status=DRAFT")).toEqual(sorted(owingFeb, creditedFeb));
    expect(await listed("status=FINALIZED")).toEqual(sorted(owingJan, creditedJan));
    expect(await listed("status=VOIDED")).toEqual([]);
    expect(await listed("overdue=true")).toEqual(sorted(owingJan));
    expect(await listed("overdue=false")).toEqual(sorted(owingFeb, creditedJan, creditedFeb));
    expect(await listed("billingStatus=None")).toEqual(sorted(owingJan, owingFeb, creditedJan, creditedFeb));
    expect(await listed("billingStatus=Paid")).toEqual([]);
    expect(await listed("status=FINALIZED&billingStatus=None&overdue=false")).toEqual(sorted(creditedJan));
    expect(await listed(`overdue=true&customerId=${credited}`)).toEqual([]);
    expect(await listed(`status=DRAFT&customerId=${credited}`)).toEqual(sorted(creditedFeb));
    expect(await listed(`status=FINALIZED&customerId=${account.customerId}`)).toEqual(sorted(owingJan));
    // Over tRPC, with typed values.
    const overTrpc = await account.trpc().invoices.list.query({ overdue: true });
    expect(overTrpc.invoices.map((invoice) => invoice.id)).toEqual([owingJan.id]);
  });

  it("pages a filtered list with a stable total", async () => {
    const { account, ids } = await twoCustomers();
    const first = (await server.rest("GET", "/invoices?status=DRAFT&limit=1", { token: account.token })).body;
    expect(first).toMatchObject({ total: 2, hasMore: true });
    const cursor = encodeURIComponent(first.nextCursor);
    const second = (
      await server.rest("GET", `/invoices?status=DRAFT&limit=1&cursor=${cursor}`, { token: account.token })
    ).body;
    expect(second).toMatchObject({ total: 2, hasMore: false });
    expect([...first.invoices, ...second.invoices].map((invoice) => invoice.id).sort()).toEqual(
      [ids.owingFeb.id, ids.creditedFeb.id].sort(),
    );
  });

  it("refuses an unknown value, or a life filter with contractId, with a 400 naming the field", async () => {
    const { account, ids } = await twoCustomers();
    const refused = async (query: string, field: string) => {
      const response = await server.rest("GET", `/invoices?${query}`, { token: account.token });
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues.map((issue: { path: string }) => issue.path)).toContain(field);
    };
    await refused("status=PAID", "status");
    await refused("billingStatus=paid", "billingStatus");
    await refused("overdue=yes", "overdue");
    await refused(`status=DRAFT&contractId=${ids.owingJan.contractId}`, "contractId");
  });
});
