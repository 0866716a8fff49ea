import { customerStreamParams } from "@billing/shared";
import { accountProcedure } from "../procedures.js";
import { scopeOf } from "../services/call-scope.js";
import { customerStreamStateOf } from "../services/customer-stream.js";
import { router } from "../trpc.js";

/**
 * `GET /customers/{customerId}/stream` (Server-Sent Events, served by http/customer-stream.ts, not by tRPC, which
 * streams no SSE to REST clients): `open` is the one authenticated call of a connection (token, read scope, rate
 * limit, the customer's existence: 404 otherwise) and hands the transport the reading of the customer's state, bound
 * to the caller's account, which the connection repeats.
 */
export const customerStreamRouter = router({
  open: accountProcedure.input(customerStreamParams).query(async ({ ctx, input }) => {
    const scope = scopeOf(ctx);
    const first = await customerStreamStateOf(scope, input.customerId);
    return {
      accountId: ctx.accountId,
      first,
      state: () => customerStreamStateOf(scope, input.customerId),
    };
  }),
});
