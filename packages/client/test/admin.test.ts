import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, withBareService } from "../../server/test/support/server.js";
import {
  AuthenticationError,
  BillingError,
  createAdminClient,
  createBillingClient,
  NotFoundError,
  PermissionError,
} from "../src/index.js";
import { rejectionOf, unknownId, useTestServer } from "./helpers.js";

const ctx = useTestServer();
const admin = () => createAdminClient({ baseUrl: ctx.server.url, token: ADMIN_TOKEN });

describe("admin", () => {
  it("creates an account whose token works for billing calls, and only for its own data", async () => {
    const { account, tokenId, token } = await admin().accounts.create("Tenant A");
    expect(account).toEqual({
      id: expect.any(String),
      name: "Tenant A",
      createdAt: expect.stringMatching(/Z$/),
      invoicePrefix: "INV",
      defaultCurrency: "USD",
      netTermsDays: 30,
      // Payment collection is on unless the account turns it off (issue 46).
      autoCollect: true,
    });
    expect(token).toMatch(/^bill_/);
    expect((await admin().tokens.list(account.id)).tokens.map(({ id }) => id)).toEqual([tokenId]);

    const client = createBillingClient({ baseUrl: ctx.server.url, token });
    expect(await client.customers.list()).toMatchObject({ total: 0, customers: [] });
    await client.customers.create({ name: "Mine" });

    const other = await admin().accounts.create("Tenant B");
    expect((await createBillingClient({ baseUrl: ctx.server.url, token: other.token }).customers.list()).total).toBe(0);
  });

  it("reads and changes an account's settings; null clears one; 404 for an account of no one", async () => {
    const { account } = await admin().accounts.create("Settings Co");
    const updated = await admin().accounts.update(account.id, {
      invoicePrefix: "SET",
      legalName: "Settings Co Ltd",
      netTermsDays: 14,
      defaultCurrency: "EUR",
    });
    expect(updated).toMatchObject({ invoicePrefix: "SET", legalName: "Settings Co Ltd", netTermsDays: 14 });
    expect(updated.defaultCurrency).toBe("EUR");
    expect(await admin().accounts.get(account.id)).toEqual(updated);
    const cleared = await admin().accounts.update(account.id, { legalName: null });
    expect(cleared.legalName).toBeUndefined();
    expect(cleared.invoicePrefix).toBe("SET");
    expect(await rejectionOf(admin().accounts.get(unknownId()))).toBeInstanceOf(NotFoundError);
  });

  it("creates a second token for an account, and revokes it at once", async () => {
    const { account, token: first } = await admin().accounts.create("Tenant");
    const second = await admin().tokens.create(account.id);
    expect(second).toEqual({ tokenId: expect.any(String), token: expect.stringMatching(/^bill_/) });
    expect(second.token).not.toBe(first);

    const withSecond = createBillingClient({ baseUrl: ctx.server.url, token: second.token });
    await withSecond.customers.create({ name: "Seen by both" });
    const withFirst = createBillingClient({ baseUrl: ctx.server.url, token: first });
    expect((await withFirst.customers.getByName("Seen by both")).name).toBe("Seen by both");

    const revoked = await admin().tokens.revoke(second.tokenId);
    expect(revoked).toEqual({ tokenId: second.tokenId, revokedAt: expect.stringMatching(/Z$/) });

    const refused = await rejectionOf(withSecond.customers.list());
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect(refused).toMatchObject({ code: "UNAUTHORIZED", status: 401, message: "Unknown or revoked token" });
    // The account's other token is untouched.
    expect((await withFirst.customers.list()).total).toBe(1);
  });

  it("creates read tokens, lists tokens without secrets, and rotates a token", async () => {
    const { account } = await admin().accounts.create("Scoped");
    const reader = await admin().tokens.create(account.id, { scope: "read" });
    const readOnly = createBillingClient({ baseUrl: ctx.server.url, token: reader.token });
    expect((await readOnly.customers.list()).total).toBe(0);
    const refused = await rejectionOf(readOnly.customers.create({ name: "Nope" }));
    expect(refused).toBeInstanceOf(PermissionError);
    expect(refused).toMatchObject({ code: "FORBIDDEN", status: 403 });

    const rotated = await admin().tokens.rotate(reader.tokenId, { graceSeconds: 60 });
    expect((await createBillingClient({ baseUrl: ctx.server.url, token: rotated.token }).customers.list()).total).toBe(
      0,
    );
    const { tokens } = await admin().tokens.list(account.id);
    expect(tokens.map((t) => [t.id, t.scope])).toEqual([
      [expect.any(String), "write"],
      [reader.tokenId, "read"],
      [rotated.tokenId, "read"],
    ]);
    expect(tokens[1]!.revokedAt).toEqual(expect.stringMatching(/Z$/));
    expect(JSON.stringify(tokens)).not.toContain(rotated.token);
  });

  it("answers NotFoundError for an unknown account or token", async () => {
    await expect(admin().tokens.create(unknownId())).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "Account not found",
    });
    const error = await rejectionOf(admin().tokens.revoke(unknownId()));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, message: "Token not found" });
  });

  it("refuses a wrong admin token with AuthenticationError", async () => {
    const impostor = createAdminClient({ baseUrl: ctx.server.url, token: "not-the-admin-token-at-all" });
    const error = await rejectionOf(impostor.accounts.create("Nope"));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ code: "UNAUTHORIZED", status: 401, message: "Invalid admin token" });
  });

  it("answers PermissionError when the server runs without ADMIN_TOKEN", async () => {
    await withBareService(async (bare) => {
      const error = await rejectionOf(
        createAdminClient({ baseUrl: bare.url, token: ADMIN_TOKEN }).accounts.create("x"),
      );
      expect(error).toBeInstanceOf(PermissionError);
      expect(error).toBeInstanceOf(BillingError);
      expect(error).toMatchObject({
        name: "PermissionError",
        code: "FORBIDDEN",
        status: 403,
        message: "The admin API is disabled: start the server with ADMIN_TOKEN set",
      });
    });
  });
});
