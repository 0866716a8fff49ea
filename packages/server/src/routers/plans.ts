import {
  plan,
  planContractList,
  planContractsQuery,
  planCreate,
  planIdParam,
  planList,
  planListQuery,
  planMigration,
  planMigrationCreate,
  planSimulation,
  planSimulationRequest,
  planVersion,
  planVersionCreate,
  planVersionParam,
  resourceRef,
} from "@billing/shared";
import { z } from "zod";
import { presentContract } from "../presenters/contracts.js";
import { accountProcedure } from "../procedures.js";
import { simulatePlan } from "../services/billing/plan-simulation.js";
import { scopeOf } from "../services/call-scope.js";
import {
  addPlanVersion,
  archivePlan,
  createPlan,
  currentVersion,
  presentPlan,
  presentPlanVersion,
  readPlan,
  requirePlan,
  requireVersion,
} from "../services/plans/catalog.js";
import { readMigration, startMigration } from "../services/plans/migrations.js";
import { router } from "../trpc.js";

const planResponse = z.object({ plan });
const planIdInput = z.object({ planId: planIdParam });
const migrationResponse = z.object({ migration: planMigration });
const tags = ["plans"];

export const plansRouter = router({
  create: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/plans",
        tags,
        summary: "Create a plan (its version 1)",
        description:
          "`key` is unique in the account (409). `products` and `productGroups` are exactly a contract's, with the " +
          "same rules (400 naming the field).",
      },
      successStatus: 201,
    })
    .input(planCreate)
    .output(planResponse)
    .mutation(async ({ ctx, input }) => ({ plan: await createPlan(scopeOf(ctx), input) })),

  list: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/plans",
        tags,
        summary: "List plans, oldest first, optionally by status",
        description: "Each with its current version's terms. Paged: pass `nextCursor` as `cursor` for the next page.",
      },
    })
    .input(planListQuery)
    .output(planList)
    .query(async ({ ctx, input }) => {
      const { items, ...page } = await ctx.repositories.plans.list(ctx.accountId, input);
      const scope = scopeOf(ctx);
      const plans = [];
      for (const item of items) plans.push(presentPlan(item, await currentVersion(scope, item)));
      return { plans, ...page };
    }),

  get: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/plans/{planId}",
        tags,
        summary: "Get a plan by id or key: its current terms and its versions with their contracts",
        description: "`versions[].contracts` counts the live contracts whose current terms follow each version.",
      },
    })
    .input(planIdInput)
    .output(planResponse)
    .query(async ({ ctx, input }) => ({ plan: await readPlan(scopeOf(ctx), input.planId) })),

  getVersion: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/plans/{planId}/versions/{version}",
        tags,
        summary: "Get one version of a plan's terms",
        description: "A version never changes once created.",
      },
    })
    .input(z.object({ planId: planIdParam, version: planVersionParam }))
    .output(z.object({ version: planVersion }))
    .query(async ({ ctx, input }) => {
      const scope = scopeOf(ctx);
      const found = await requirePlan(scope, input.planId);
      return { version: presentPlanVersion(found, await requireVersion(scope, found, input.version, "version")) };
    }),

  addVersion: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/plans/{planId}/versions",
        tags,
        summary: "Create the plan's next version",
        description:
          "Version n + 1 becomes the current one (new contracts take it by default); earlier versions and the " +
          "contracts following them do not change (see migrations). An archived plan is 409.",
      },
      successStatus: 201,
    })
    .input(planVersionCreate.extend(planIdInput.shape))
    .output(planResponse)
    .mutation(async ({ ctx, input: { planId, ...terms } }) => ({
      plan: await addPlanVersion(scopeOf(ctx), planId, terms),
    })),

  archive: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/plans/{planId}/archive",
        tags,
        summary: "Archive a plan",
        description: "No new contract may take it (409); its contracts keep billing. Archiving again changes nothing.",
      },
    })
    .input(planIdInput)
    .output(planResponse)
    .mutation(async ({ ctx, input }) => ({ plan: await archivePlan(scopeOf(ctx), input.planId) })),

  contracts: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/plans/{planId}/contracts",
        tags,
        summary: "List a plan's subscribers (of one version with `version`), oldest first",
        description: "Live contracts whose current terms follow the plan. Paged like every list.",
      },
    })
    .input(planContractsQuery)
    .output(planContractList)
    .query(async ({ ctx, input: { planId, version, ...page } }) => {
      const found = await requirePlan(scopeOf(ctx), planId);
      const { items, ...rest } = await ctx.repositories.contracts.ofPlan(ctx.accountId, found.id, {
        ...page,
        ...(version !== undefined && { version }),
      });
      return { contracts: items.map(presentContract), ...rest };
    }),

  migrate: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/plans/{planId}/migrations",
        tags,
        summary: "Move the plan's contracts on some versions to another",
        description:
          "Each contract is amended from its day (`effective`) as PATCH /contracts/{id} would: a cycle split and " +
          "prorated, a day already invoiced refused for that contract (listed in `failed`). Worked in batches, the " +
          "first in this call, the rest in the background; each contract moves once however often it is run.",
      },
      successStatus: 202,
    })
    .input(planMigrationCreate.extend(planIdInput.shape))
    .output(migrationResponse)
    .mutation(async ({ ctx, input: { planId, ...migration } }) => ({
      migration: await startMigration(scopeOf(ctx), planId, migration),
    })),

  migration: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/plans/{planId}/migrations/{migrationId}",
        tags,
        summary: "A migration's progress",
        description: "`done` counts contracts moved, `failed` lists those left where they were, with the reason.",
      },
    })
    .input(z.object({ planId: planIdParam, migrationId: resourceRef }))
    .output(migrationResponse)
    .query(async ({ ctx, input }) => ({
      migration: await readMigration(scopeOf(ctx), input.planId, input.migrationId),
    })),

  simulate: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/plans/{planId}/simulate",
        tags,
        summary: "What candidate terms would have billed the plan's contracts over a past period",
        description:
          "Each contract (the first `sample`, at most 50 a call) priced over its stored usage under its own terms " +
          "and under the candidate's (its overrides kept), as POST /invoices/simulate prices one, with the sums. " +
          "Stores nothing; `hasMore` when the call stopped at its limits.",
      },
      readOnly: true,
    })
    .input(planSimulationRequest.extend(planIdInput.shape))
    .output(z.object({ simulation: planSimulation }))
    .mutation(async ({ ctx, input: { planId, ...request } }) => ({
      simulation: await simulatePlan(scopeOf(ctx), planId, request),
    })),
});
