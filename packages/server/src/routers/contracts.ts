import {
  contract,
  contractCreate,
  contractHistory,
  contractIdParam,
  contractList,
  contractListQuery,
  contractTermination,
  contractUpdate,
  seatChangeCreate,
  seatSchedule,
} from "@billing/shared";
import { z } from "zod";
import { notFound } from "../domain/errors.js";
import { presentContract } from "../presenters/contracts.js";
import { accountProcedure } from "../procedures.js";
import { scopeOf } from "../services/call-scope.js";
import { readContract, readContractPage } from "../services/contract-reads.js";
import { createContract } from "../services/contracts/creation.js";
import { deleteContract } from "../services/contracts/deletion.js";
import { contractHistory as historyOf, withBillingErrors } from "../services/contracts/reads.js";
import { changeSeats, seatScheduleOf } from "../services/contracts/seats.js";
import { terminateContract } from "../services/contracts/termination.js";
import { changeContract, createPlanContract } from "../services/plans/subscriptions.js";
import { router } from "../trpc.js";
import { requireCustomer } from "./require-customer.js";

const contractResponse = z.object({ contract });
const tags = ["contracts"];

export const contractsRouter = router({
  create: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/contracts",
        tags,
        summary: "Create a contract",
        description:
          "Besides each field's own rules: `endDate` on a later UTC day than `startDate`; each commitment's " +
          "`units × price` at most 1e9 USD; a commitment with `overageStrategy: CHARGE` needs the product's " +
          "`catalogProductId` (a group's, one of its products') (else 400). With `planId` instead of products: the " +
          "plan version's terms (default its current one) with `overrides` by product (an unknown one is 400); an " +
          "archived plan is 409.",
      },
      successStatus: 201,
    })
    .input(contractCreate)
    .output(contractResponse)
    .mutation(async ({ ctx, input }) => {
      const customerId = await requireCustomer(ctx, input.customerId);
      const { planId } = input;
      if (planId !== undefined)
        return { contract: await createPlanContract(scopeOf(ctx), { ...input, customerId, planId }) };
      return { contract: await createContract(scopeOf(ctx), { ...input, customerId }) };
    }),

  list: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/contracts",
        tags,
        summary: "List contracts that are not deleted, oldest first, optionally of one customer",
        description:
          "`customerId` takes a customer's id or externalId (one no customer has: an empty list). Paged: pass " +
          "`nextCursor` as `cursor` for the next page; `total` counts every match.",
      },
    })
    .input(contractListQuery)
    .output(contractList)
    .query(async ({ ctx, input }) => {
      // A customer's externalId names it here too, as in GET /invoices.
      const customer = input.customerId && (await ctx.repositories.customers.get(ctx.accountId, input.customerId));
      const filter = customer ? { ...input, customerId: customer.id } : input;
      const { items, ...page } = await readContractPage(ctx.repositories, ctx.accountId, filter);
      return { contracts: await withBillingErrors(scopeOf(ctx), items.map(presentContract)), ...page };
    }),

  get: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/contracts/{contractId}",
        tags,
        summary: "Get a contract that is not deleted",
        description:
          "A deleted contract answers 404, as does another account's. `status` reads `Error` while a cycle of the " +
          "contract has failed to bill (see a billing run's `failures`), its own status again once that cycle bills.",
      },
    })
    .input(contractIdParam)
    .output(contractResponse)
    .query(async ({ ctx, input }) => {
      const found = await readContract(ctx.repositories, ctx.accountId, input.contractId);
      if (!found) throw notFound("Contract");
      const presented = presentContract(found);
      const [shown] = await withBillingErrors(scopeOf(ctx), [presented]);
      return { contract: shown ?? presented };
    }),

  update: accountProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/contracts/{contractId}",
        tags,
        summary: "Pause or resume a contract from a UTC day; amend its fields, or its terms from a UTC day",
        description:
          "`effectiveFrom` with `status` defaults to today; with `products`/`productGroups` it is required: the new " +
          "terms (the next `version`) bill from that day, the cycle running then is split and each part prorated by " +
          "days. A past day only where no invoice of the contract covers it (else 409); `endDate` no earlier than " +
          "that either. An empty body changes nothing. " +
          "Paused days are not billed: prorated out with `shouldProRateInvoices`, else a cycle is billed when the " +
          "contract was active on its first day. A transition the status machine refuses is 409. On a plan's " +
          "contract, `products` make it custom from `effectiveFrom`; `planVersion` moves it to that version of its " +
          "plan from `effectiveFrom`, its overrides kept (409 naming one whose product the version lacks, unless " +
          "`dropOverrides`).",
      },
    })
    .input(contractUpdate.extend(contractIdParam.shape))
    .output(contractResponse)
    .mutation(async ({ ctx, input: { contractId, ...change } }) => ({
      contract: presentContract(await changeContract(scopeOf(ctx), contractId, change, ctx.holder.tokenId)),
    })),

  terminate: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/contracts/{contractId}/terminate",
        tags,
        summary: "Terminate a contract now, at a past moment, or at a future one (PendingTermination until then)",
        description:
          "Billing stops at the UTC day of `at` (not billed); the last cycle is prorated when the contract says so. " +
          "A past `at` only where no invoice of the contract covers it (else 409).",
      },
    })
    .input(contractTermination.extend(contractIdParam.shape))
    .output(contractResponse)
    .mutation(async ({ ctx, input: { contractId, ...termination } }) => ({
      contract: presentContract(await terminateContract(scopeOf(ctx), contractId, termination, ctx.holder.tokenId)),
    })),

  changeSeats: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/contracts/{contractId}/seats",
        tags,
        summary: "Change a PER_SEAT product's seats from a UTC day",
        description:
          "Each seat count is billed for its days within a cycle (prorated by days, up and down). In a prepaid cycle " +
          "already issued, seats added are billed on the next invoice as an adjustment line " +
          "(`+3 seats from Apr 11`) and seats removed are refunded there (`−10 seats from Apr 21`, a negative line, " +
          "a product's refunds at most what its lines charge). A day of an invoiced arrears cycle is 409. Recorded " +
          "in the contract's history; publishes `contract.seats_changed`.",
      },
    })
    .input(seatChangeCreate.extend(contractIdParam.shape))
    .output(contractResponse)
    .mutation(async ({ ctx, input: { contractId, ...change } }) => ({
      contract: presentContract(await changeSeats(scopeOf(ctx), contractId, change, ctx.holder.tokenId)),
    })),

  seats: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/contracts/{contractId}/seats",
        tags,
        summary: "The seat schedule of a contract's PER_SEAT products",
        description: "Per product: its seats from the contract's start, then each change in the order entered.",
      },
    })
    .input(contractIdParam)
    .output(seatSchedule)
    .query(async ({ ctx, input }) => seatScheduleOf(scopeOf(ctx), input.contractId)),

  history: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/contracts/{contractId}/history",
        tags,
        summary: "A contract's status transitions and renewals, oldest first",
        description: "`by` is the token that made the change, or `system` for one time made (renewal, expiry).",
      },
    })
    .input(contractIdParam)
    .output(contractHistory)
    .query(async ({ ctx, input }) => ({ history: await historyOf(scopeOf(ctx), input.contractId) })),

  delete: accountProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/contracts/{contractId}",
        tags,
        summary: "Delete a contract: it is kept, marked Terminated and deleted, and leaves every list",
        description:
          "It is billed no more; the invoices already made stay as they are. A contract already Expired or " +
          "Terminated keeps its status.",
      },
    })
    .input(contractIdParam)
    .output(contractResponse)
    .mutation(async ({ ctx, input }) => ({
      contract: await deleteContract({ ...scopeOf(ctx), holder: ctx.holder }, input.contractId),
    })),
});
