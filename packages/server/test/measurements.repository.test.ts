import { describe, expect, it } from "vitest";
import { useAccount, useTestServer } from "./support/harness.js";

/** The measurements repository, on measurements written through the API. */
const server = useTestServer();
const account = useAccount(server, { customer: { name: "Metered" } });

const measure = (body: unknown) => server.rest("POST", "/measurements", { token: account.token, body });
const day = (year: number, month: number, dayOfMonth: number) => ({ year, month, day: dayOfMonth });

// The billing engine's read; it has no endpoint of its own yet, so it is exercised on the repository.
describe("sumByMeter", () => {
  const sum = (customer: string, meterId: string, from: string, to: string, ofAccount = account.accountId) =>
    server.service.repositories.measurements.sumByMeter(ofAccount, customer, meterId, from, to);

  it("sums the days in [from, to) of one meter of one customer, exactly, in micro-units", async () => {
    const other = (await server.rest("POST", "/customers", { token: account.token, body: { name: "Summed other" } }))
      .body.customer.id;
    const write = (usageDate: object, value: number, meterId = "sum", customer = account.customerId) =>
      measure({ customerId: customer, meterId, usageDate, value });
    await write(day(2024, 9, 30), 1000); // before the range
    await write(day(2024, 10, 1), 0.1);
    await write(day(2024, 10, 15), 0.2);
    await write(day(2024, 10, 15), 0.2); // a replacement counts once
    await write(day(2024, 10, 31), 3.000001);
    await write(day(2024, 11, 1), 1000); // the exclusive end
    await write(day(2024, 10, 2), 1000, "sum-other-meter");
    await write(day(2024, 10, 2), 1000, "sum", other);
    expect(await sum(account.customerId, "sum", "2024-10-01", "2024-11-01")).toBe(3_300_001n);
    expect(await sum(account.customerId, "sum", "2024-10-02", "2024-10-15")).toBe(0n);
    expect(await sum(account.customerId.toUpperCase(), "sum", "2024-09-30", "2024-10-02")).toBe(1_000_100_000n);
  });

  it("stays exact past 2^53 micro-units", async () => {
    for (let dayOfMonth = 1; dayOfMonth <= 31; dayOfMonth += 1) {
      await measure({
        customerId: account.customerId,
        meterId: "huge",
        usageDate: day(2024, 12, dayOfMonth),
        value: 999999999.999999,
      });
    }
    const total = await sum(account.customerId, "huge", "2024-12-01", "2025-01-01");
    expect(total).toBe(31n * 999_999_999_999_999n);
    expect(total > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
  });

  it("is 0 for another account, an unknown customer or a malformed id; refuses malformed days", async () => {
    const { accountId: otherAccount } = await server.newAccount();
    await measure({ customerId: account.customerId, meterId: "scoped", usageDate: day(2024, 1, 5), value: 5 });
    expect(await sum(account.customerId, "scoped", "2024-01-01", "2024-02-01")).toBe(5_000_000n);
    expect(await sum(account.customerId, "scoped", "2024-01-01", "2024-02-01", otherAccount)).toBe(0n);
    expect(await sum("0123456789abcdef01234567", "scoped", "2024-01-01", "2024-02-01")).toBe(0n);
    expect(await sum('{"$ne":null}', "scoped", "2024-01-01", "2024-02-01")).toBe(0n);
    await expect(sum(account.customerId, "scoped", "2024-1-1", "2024-02-01")).rejects.toThrow(RangeError);
  });
});
