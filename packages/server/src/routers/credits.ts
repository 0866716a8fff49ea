import {
  creditBalance,
  creditBalanceQuery,
  creditEntryResponse,
  creditGrant,
  creditList,
  creditListQuery,
  creditVoidParams,
  recurrenceCancelParams,
  recurringGrantResponse,
} from "@billing/shared";
import { billingNow } from "../billing-clock.js";
import { recurrenceIssues } from "../domain/credit-recurrence.js";
import { badRequest } from "../domain/errors.js";
import { balancesByCurrency, grantTermIssues } from "../domain/grants.js";
import { DEFAULT_CURRENCY } from "../domain/money/currency.js";
import { amountOf } from "../presenters/money.js";
import { accountProcedure } from "../procedures.js";
import { scopeOf } from "../services/call-scope.js";
import {
  creditBalanceOf,
  creditEntriesOf,
  defaultCurrencyOf,
  grantCredits,
  voidGrant,
} from "../services/credit-ledger.js";
import { cancelRecurrence } from "../services/credit-recurrences.js";
import { router } from "../trpc.js";
import { requireCustomer } from "./require-customer.js";

const tags = ["credits"];

export const creditsRouter = router({
  grant: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/credits",
        tags,
        summary: "Grant credits to a customer",
        description:
          "Appends a `Grant` entry to the customer's ledger. `contractId`, `invoiceId` and `erpId` are stored as " +
          "given. `expiresAt` must be after now and after `effectiveAt` (400). 409 when the balance would pass " +
          "1e9 USD, or the customer already holds 100 grants with money left. With `recurrence`, a grant is issued " +
          "each period from `effectiveAt` (at most one period ago), once per period whoever reaches it first, and " +
          "the answer is the first period's entry.",
      },
      successStatus: 201,
      finance: true,
    })
    .input(creditGrant)
    .output(creditEntryResponse)
    .mutation(async ({ ctx, input }) => {
      const now = billingNow(ctx.accountId);
      const issues = input.recurrence
        ? recurrenceIssues(input, input.recurrence.every.value, now)
        : grantTermIssues(input, now);
      if (issues.length > 0) {
        const described = issues.map((issue) => `${issue.path} ${issue.message}`).join("; ");
        throw badRequest(`Invalid grant: ${described}`, issues);
      }
      const customerId = await requireCustomer(ctx, input.customerId);
      return { entry: await grantCredits(scopeOf(ctx), { ...input, customerId }, now) };
    }),

  balance: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/credits/balance",
        tags,
        summary: "A customer's credit balance and the grants with money left, in burn order",
        description:
          "Burn order: lower `priority` first, then the earliest `expiresAt` (none last), then the oldest grant. " +
          "Expirations that have come are written to the ledger first.",
      },
    })
    .input(creditBalanceQuery)
    .output(creditBalance)
    .query(async ({ ctx, input }) => {
      const customerId = await requireCustomer(ctx, input.customerId);
      const scope = scopeOf(ctx);
      const { grants } = await creditBalanceOf(scope, customerId);
      const [shown, ...others] = balancesByCurrency(grants, await defaultCurrencyOf(scope));
      const balances = [shown, ...others].flatMap((each) =>
        each ? [{ currency: each.currency, balance: amountOf(each.micros) }] : [],
      );
      return {
        balance: balances[0]?.balance ?? 0,
        currency: balances[0]?.currency ?? DEFAULT_CURRENCY,
        balances,
        grants: grants.map(
          ({ grantId, amountMicros, remainingMicros, effectiveAt, expiresAt, priority, currency }) => ({
            grantId,
            amount: amountOf(amountMicros),
            remaining: amountOf(remainingMicros),
            currency,
            effectiveAt: effectiveAt.toISOString(),
            ...(expiresAt && { expiresAt: expiresAt.toISOString() }),
            priority,
          }),
        ),
      };
    }),

  void: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/credits/{entryId}/void",
        tags,
        summary: "Void what is left of a grant",
        description:
          "Appends a `Void` entry removing what is left of the grant. 409 when nothing is left (spent, expired or " +
          "already voided: voiding twice writes one entry) or the entry is not a grant; 404 for an entry of " +
          "another account.",
      },
      successStatus: 201,
      finance: true,
    })
    .input(creditVoidParams)
    .output(creditEntryResponse)
    .mutation(async ({ ctx, input }) => {
      return { entry: await voidGrant(scopeOf(ctx), input.entryId) };
    }),

  cancelRecurrence: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/credits/{entryId}/recurrence/cancel",
        tags,
        summary: "Cancel a recurring grant",
        description:
          "Stops the recurring grant (`POST /credits` with `recurrence`) that the `Grant` entry belongs to: the " +
          "periods started by now are issued and stay (their grants expire as they would), no later one is issued. " +
          "Answers the recurring grant, `lastPeriod` its last period; canceling again answers the same. 404 for an " +
          "entry of another account; 409 for an entry of no recurring grant, or of a contract's `creditGrants` " +
          "(changed by PATCH /contracts/{id}).",
      },
      finance: true,
    })
    .input(recurrenceCancelParams)
    .output(recurringGrantResponse)
    .mutation(async ({ ctx, input }) => {
      return { recurringGrant: await cancelRecurrence(scopeOf(ctx), input.entryId) };
    }),

  list: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/credits",
        tags,
        summary: "List a customer's credit ledger entries, in ledger order",
        description:
          "Oldest entry first. The next page starts after the entry whose id is passed as `cursor` (the last id " +
          "received); a page shorter than `limit` is the last one. A `cursor` naming no entry of this ledger is " +
          "404.",
      },
    })
    .input(creditListQuery)
    .output(creditList)
    .query(async ({ ctx, input: { customerId: named, ...page } }) => {
      const customerId = await requireCustomer(ctx, named);
      const { entries } = await creditEntriesOf(scopeOf(ctx), customerId, page);
      return { entries };
    }),
});
