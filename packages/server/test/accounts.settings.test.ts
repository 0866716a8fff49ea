import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { useTestServer } from "./support/harness.js";
import { ADMIN_TOKEN, newId } from "./support/server.js";

const server = useTestServer();

const patch = (accountId: string, body: unknown, token = ADMIN_TOKEN) =>
  server.rest("PATCH", `/admin/accounts/${accountId}`, { token, body });

describe("account settings", () => {
  it("reads INV by default, sets prefix and seller details, and clears one with null", async () => {
    const { accountId } = await server.newAccount("Seller Inc");
    const read = await server.rest("GET", `/admin/accounts/${accountId}`, { token: ADMIN_TOKEN });
    expect(read.status).toBe(200);
    expect(read.body.account).toMatchObject({
      id: accountId,
      name: "Seller Inc",
      invoicePrefix: "INV",
      defaultCurrency: "USD",
      netTermsDays: 30,
    });
    const seller = {
      invoicePrefix: "ACME2024",
      legalName: "Seller Incorporated",
      address: { country: "FR", city: "Paris", addressText: "1 rue de la Paix", postalCode: "75002" },
      taxId: "FR12345678901",
      email: "billing@seller.example",
      defaultCurrency: "EUR",
      netTermsDays: 45,
    };
    const updated = await patch(accountId, seller);
    expect(updated.status).toBe(200);
    expect(updated.body.account).toEqual({
      id: accountId,
      name: "Seller Inc",
      createdAt: expect.any(String),
      autoCollect: true,
      ...seller,
    });
    const cleared = await patch(accountId, { taxId: null });
    const { taxId: _, ...rest } = seller;
    const unchanged = { id: accountId, name: "Seller Inc", createdAt: expect.any(String), autoCollect: true };
    expect(cleared.body.account).toEqual({ ...unchanged, ...rest });
    expect((await server.rest("GET", `/admin/accounts/${accountId}`, { token: ADMIN_TOKEN })).body).toEqual(
      cleared.body,
    );
  });

  it("refuses a prefix outside 1..10 of A-Z0-9 with a 400 naming the field, and stores nothing", async () => {
    const { accountId } = await server.newAccount();
    for (const invoicePrefix of ["", "inv", "INV-", "ABCDEFGHIJK", "É"]) {
      const response = await patch(accountId, { invoicePrefix });
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues).toEqual([expect.objectContaining({ path: "invoicePrefix" })]);
    }
    expectError(await patch(accountId, { email: "not an address" }), 400, "BAD_REQUEST");
    expectError(await patch(accountId, { website: "x" }), 400, "BAD_REQUEST");
    // An ISO 4217 code: three capitals (the schema) of a currency the ISO list has (the server).
    for (const defaultCurrency of ["eur", "EURO", "ABC", "XAU"]) {
      const response = await patch(accountId, { defaultCurrency });
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues).toEqual([expect.objectContaining({ path: "defaultCurrency" })]);
    }
    const read = await server.rest("GET", `/admin/accounts/${accountId}`, { token: ADMIN_TOKEN });
    expect(read.body.account).toMatchObject({ invoicePrefix: "INV", defaultCurrency: "USD" });
  });

  it("is the operator's: 404 for an unknown account, an account token is refused", async () => {
    expectError(await patch(newId(), { invoicePrefix: "X" }), 404, "NOT_FOUND");
    const { accountId, token } = await server.newAccount();
    expect((await patch(accountId, { invoicePrefix: "X" }, token)).status).toBe(401);
  });
});
