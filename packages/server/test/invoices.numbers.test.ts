import { describe, expect, it } from "vitest";
import { billingAccount, committed } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { ADMIN_TOKEN, newId } from "./support/server.js";

/** Invoice numbers (docs/decisions.md, "Invoice life: numbers"). */
const server = useTestServer();

/** 10 × 99.99 = 999.90 per monthly cycle, from Jan 1, 2024. */
const seats = { startDate: "2024-01-01T00:00:00Z", products: [committed(10, 99.99)] };

describe("numbers given by runs (no draft period)", () => {
  it("finalizes each invoice at once with the next number of the account, in the order made", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(seats);
    await account.run("2024-03-01T00:00:00Z");
    const invoices = await account.invoices(contract.id);
    expect(invoices.map((invoice) => [invoice.status, invoice.number])).toEqual([
      ["FINALIZED", "INV-000001"],
      ["FINALIZED", "INV-000002"],
    ]);
    // 999.90 each, nothing paid: all of it due.
    expect(invoices.map((invoice) => [invoice.billingStatus, invoice.amountPaid, invoice.amountDue])).toEqual([
      ["None", 0, 999.9],
      ["None", 0, 999.9],
    ]);
    expect(invoices.every((invoice) => invoice.finalizedAt !== null && invoice.voidedAt === null)).toBe(true);
    // Another account counts from 1.
    const other = await billingAccount(server);
    const its = await other.contract(seats);
    await other.run("2024-02-01T00:00:00Z");
    expect((await other.invoices(its.id)).map((invoice) => invoice.number)).toEqual(["INV-000001"]);
  });

  it("applies a prefix change to later numbers only", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(seats);
    await account.run("2024-02-01T00:00:00Z");
    const patched = await server.rest("PATCH", `/admin/accounts/${account.accountId}`, {
      token: ADMIN_TOKEN,
      body: { invoicePrefix: "ACME" },
    });
    expect(patched.status).toBe(200);
    await account.run("2024-04-01T00:00:00Z");
    expect((await account.invoices(contract.id)).map((invoice) => invoice.number)).toEqual([
      "INV-000001",
      "ACME-000002",
      "ACME-000003",
    ]);
  });
});

describe("numbers claimed for a batch (documentNumbers.claimMany)", () => {
  it("numbers two batches claimed at once 1 to 40: none twice, none skipped, none left to claim alone", async () => {
    const { accountId } = await server.newAccount();
    const ids = (count: number) => Array.from({ length: count }, () => newId());
    const batches = [ids(20), ids(20)];
    const claim = (documentIds: string[]) =>
      server.service.repositories.documentNumbers.claimMany({ accountId, series: "INV", documentIds, prefix: "INV" });
    // Both read the series' last (0) and claim 1–20: what one loses, it claims again together after the last given.
    const given = await Promise.all(batches.map(claim));
    expect(given.map((numbers) => numbers.size)).toEqual([20, 20]);
    const numbers = given.flatMap((byDocument) => [...byDocument.values()].map(({ n }) => n)).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
  });
});
