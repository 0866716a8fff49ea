import {
  account,
  accountCreate,
  accountCreated,
  accountUpdate,
  newToken,
  revokedToken,
  tokenCreate,
  tokenList,
  tokenRotate,
} from "@billing/shared";
import { z } from "zod";
import { notFound } from "../domain/errors.js";
import { changesNothing } from "../domain/patch.js";
import { adminProcedure } from "../procedures.js";
import { assertMayBecomeTestAccount } from "../services/billing/test-clock/conversion.js";
import { requireLiveTaxRates } from "../services/tax-rates.js";
import { router } from "../trpc.js";

const tags = ["admin"];
const id = z.string().min(1).max(200);

export const adminRouter = router({
  createAccount: adminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/accounts",
        tags,
        summary: "Create an account and its first token (write scope)",
        description:
          "Needs the server's ADMIN_TOKEN. The new token's secret is in this answer, and only there. With " +
          "`testClock`, a test account: its billing time is its own clock, starting at `testClock.at`.",
      },
      successStatus: 201,
    })
    .input(accountCreate)
    .output(accountCreated)
    .mutation(async ({ ctx, input }) => {
      const testClockAt = input.testClock && new Date(input.testClock.at);
      const account = await ctx.repositories.accounts.create(input.name, testClockAt);
      const { tokenId, token } = await ctx.repositories.tokens.create(account.id, "write");
      return { account, tokenId, token };
    }),

  getAccount: adminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/accounts/{accountId}",
        tags,
        summary: "Get an account and its settings",
        description: "Needs the server's ADMIN_TOKEN.",
      },
    })
    .input(z.object({ accountId: id }))
    .output(z.object({ account }))
    .query(async ({ ctx, input }) => {
      const found = await ctx.repositories.accounts.get(input.accountId);
      if (!found) throw notFound("Account");
      return { account: found };
    }),

  updateAccount: adminProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/admin/accounts/{accountId}",
        tags,
        summary: "Change an account's invoice prefix and seller details",
        description:
          "Fields absent are kept; `null` clears an optional one. `invoicePrefix` (1..10 of A-Z0-9, default `INV`) " +
          "applies to numbers given after the change; `legalName`, `address`, `taxId` and `email` are the seller " +
          "block of the account's documents; `defaultTaxRateCodes` the rates of invoices whose terms and customer " +
          "name none (live codes of the account, else 400). `defaultCurrency` (ISO 4217, default `USD`) is the " +
          "currency of contracts and credit grants created later that name none. `testClock` makes an account " +
          "with no invoice a test account for good (409 once it has invoices, or is one).",
      },
    })
    .input(z.strictObject({ accountId: id, ...accountUpdate }))
    .output(z.object({ account }))
    .mutation(async ({ ctx, input }) => {
      const { accountId, ...changes } = input;
      if (changes.testClock) await assertMayBecomeTestAccount(ctx.repositories, accountId);
      const codes = changes.defaultTaxRateCodes ?? undefined;
      await requireLiveTaxRates(ctx.repositories, accountId, [{ path: "defaultTaxRateCodes", codes }]);
      const updated = changesNothing(changes)
        ? await ctx.repositories.accounts.get(accountId)
        : await ctx.repositories.accounts.update(accountId, changes);
      if (!updated) throw notFound("Account");
      return { account: updated };
    }),

  createToken: adminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/accounts/{accountId}/tokens",
        tags,
        summary: "Create a token for an account (body optional)",
        description: "A `read` token may only GET; a `write` one may also make changes. Its secret is shown only here.",
      },
      successStatus: 201,
    })
    .input(z.strictObject({ accountId: id, ...tokenCreate }))
    .output(newToken)
    .mutation(async ({ ctx, input }) => {
      if (!(await ctx.repositories.accounts.exists(input.accountId))) throw notFound("Account");
      return ctx.repositories.tokens.create(input.accountId, input.scope);
    }),

  listTokens: adminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/accounts/{accountId}/tokens",
        tags,
        summary: "List an account's tokens, without secrets",
        description: "Tokens are stored only as hashes: a lost secret cannot be shown again, only replaced.",
      },
    })
    .input(z.object({ accountId: id }))
    .output(tokenList)
    .query(async ({ ctx, input }) => {
      if (!(await ctx.repositories.accounts.exists(input.accountId))) throw notFound("Account");
      return { tokens: await ctx.repositories.tokens.list(input.accountId) };
    }),

  rotateToken: adminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/tokens/{tokenId}/rotate",
        tags,
        summary: "Replace a token by a new one of the same account and scope (body optional)",
        description:
          "The old token stops working after `graceSeconds` (default 0: at once). A token can be rotated once.",
      },
      successStatus: 201,
    })
    .input(z.strictObject({ tokenId: id, ...tokenRotate }))
    .output(newToken)
    .mutation(async ({ ctx, input }) => {
      const rotated = await ctx.repositories.tokens.rotate(input.tokenId, input.graceSeconds);
      if (!rotated) throw notFound("Token");
      return rotated;
    }),

  revokeToken: adminProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/admin/tokens/{tokenId}",
        tags,
        summary: "Revoke a token at once",
        description: "The token is refused from the next request on. Revoking is final: rotate to replace a token.",
      },
    })
    .input(z.object({ tokenId: id }))
    .output(revokedToken)
    .mutation(async ({ ctx, input }) => {
      const revoked = await ctx.repositories.tokens.revoke(input.tokenId);
      if (!revoked) throw notFound("Token");
      return { tokenId: input.tokenId, revokedAt: revoked.revokedAt.toISOString() };
    }),
});
