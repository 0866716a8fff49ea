import { z } from "zod";
import { accountCreate, accountCreated, newToken, revokedToken } from "@billing/shared";
import { iso } from "../db/ids.js";
import { notFound } from "../errors.js";
import { adminProcedure, router } from "../trpc.js";

const tags = ["admin"];
const id = z.string().min(1).max(200);

export const adminRouter = router({
  createAccount: adminProcedure
    .meta({ openapi: { method: "POST", path: "/admin/accounts", tags, summary: "Create an account and its first token" }, successStatus: 201 })
    .input(accountCreate)
    .output(accountCreated)
    .mutation(async ({ ctx, input }) => {
      const account = await ctx.repositories.accounts.create(input.name);
      const { token } = await ctx.repositories.tokens.create(account.id);
      return { account, token };
    }),

  createToken: adminProcedure
    .meta({ openapi: { method: "POST", path: "/admin/accounts/{accountId}/tokens", tags, summary: "Create a token for an account" }, successStatus: 201 })
    .input(z.object({ accountId: id }))
    .output(newToken)
    .mutation(async ({ ctx, input }) => {
      if (!(await ctx.repositories.accounts.exists(input.accountId))) throw notFound("Account");
      return ctx.repositories.tokens.create(input.accountId);
    }),

  revokeToken: adminProcedure
    .meta({ openapi: { method: "DELETE", path: "/admin/tokens/{tokenId}", tags, summary: "Revoke a token at once" } })
    .input(z.object({ tokenId: id }))
    .output(revokedToken)
    .mutation(async ({ ctx, input }) => {
      const revoked = await ctx.repositories.tokens.revoke(input.tokenId);
      if (!revoked) throw notFound("Token");
      return { tokenId: input.tokenId, revokedAt: iso(revoked.revokedAt) };
    }),
});
