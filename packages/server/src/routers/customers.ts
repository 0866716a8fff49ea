import {
  customer,
  customerCreate,
  customerIdParam,
  customerList,
  customerListQuery,
  customerUpdate,
  requiredText,
} from "@billing/shared";
import { z } from "zod";
import { notFound } from "../domain/errors.js";
import { accountProcedure } from "../procedures.js";
import { scopeOf } from "../services/call-scope.js";
import { createCustomer, updateCustomer } from "../services/customers.js";
import { router } from "../trpc.js";

const customerResponse = z.object({ customer });
const tags = ["customers"];

export const customersRouter = router({
  create: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/customers",
        tags,
        summary: "Create a customer",
        description: "`name` and each alias are unique within the account (409 when taken).",
      },
      successStatus: 201,
    })
    .input(customerCreate)
    .output(customerResponse)
    .mutation(async ({ ctx, input }) => ({ customer: await createCustomer(scopeOf(ctx), input) })),

  update: accountProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/customers/{customerId}",
        tags,
        summary: "Update a customer",
        description: "Fields given replace the stored ones; fields left out are kept. Named by id or externalId.",
      },
    })
    .input(customerUpdate.extend({ customerId: customerIdParam }))
    .output(customerResponse)
    .mutation(async ({ ctx, input: { customerId, ...changes } }) => ({
      customer: await updateCustomer(scopeOf(ctx), customerId, changes),
    })),

  list: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/customers",
        tags,
        summary: "List customers, oldest first, optionally those with one alias",
        description:
          "`alias`: only the customer listing it (an alias names one at most). Paged: pass `nextCursor` as " +
          "`cursor` for the next page; `total` counts every match.",
      },
    })
    .input(customerListQuery)
    .output(customerList)
    .query(async ({ ctx, input }) => {
      const { items, ...page } = await ctx.repositories.customers.list(ctx.accountId, input);
      return { customers: items, ...page };
    }),

  // Defined before `get`: routes match in definition order, and `/customers/{customerId}` would capture "name".
  getByName: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/customers/name/{name}",
        tags,
        summary: "Get the customer with exactly this name",
        description: "Matched exactly as stored (trimmed, case included); 404 when no customer has it.",
      },
    })
    .input(z.object({ name: requiredText() }))
    .output(customerResponse)
    .query(async ({ ctx, input }) => {
      const found = await ctx.repositories.customers.getByName(ctx.accountId, input.name);
      if (!found) throw notFound("Customer");
      return { customer: found };
    }),

  get: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/customers/{customerId}",
        tags,
        summary: "Get a customer by id or externalId",
        description: "The service id is tried first, then the externalId; another account's customer is a 404.",
      },
    })
    .input(z.object({ customerId: customerIdParam }))
    .output(customerResponse)
    .query(async ({ ctx, input }) => {
      const found = await ctx.repositories.customers.get(ctx.accountId, input.customerId);
      if (!found) throw notFound("Customer");
      return { customer: found };
    }),
});
