import { currentToken, currentTokenQuery } from "@billing/shared";
import { accountProcedure } from "../procedures.js";
import { router } from "../trpc.js";

export const tokenRouter = router({
  current: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/token",
        tags: ["tokens"],
        summary: "The token making the call: its id, its account and its scope",
        description:
          "What a client (the console) shows before offering changes: a `read` token's changes are refused (403). " +
          "Any token may call it.",
      },
    })
    .input(currentTokenQuery)
    .output(currentToken)
    .query(({ ctx }) => ({
      token: { id: ctx.holder.tokenId, accountId: ctx.accountId, scope: ctx.holder.scope },
    })),
});
