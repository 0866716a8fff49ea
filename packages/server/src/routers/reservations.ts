import {
  reservation,
  reservationCreate,
  reservationCustomerParams,
  reservationIdParam,
  reservationSettle,
} from "@billing/shared";
import { z } from "zod";
import { accountProcedure } from "../procedures.js";
import { scopeOf } from "../services/call-scope.js";
import { createReservation, getReservation, settleReservation } from "../services/reservations.js";
import { router } from "../trpc.js";

const reservationResponse = z.object({ reservation });
const tags = ["reservations"];

export const reservationsRouter = router({
  create: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/customers/{customerId}/reservations",
        tags,
        summary: "Hold units of a meter (or money of the credit balance) for the customer, if its limit allows",
        description:
          "Admitted when the cycle's usage + the units open reservations hold + `amount` stay within the " +
          "commitment's units of the contract item naming the meter (no commitment: unlimited; a MAX meter: " +
          "`amount` ≤ units, a cap), else 409 with `LIMIT_REACHED` and what remains. Exact under concurrency, on " +
          "any number of instances. SUM, COUNT (whole events) and MAX meters only: others 400 naming `meterKey`. " +
          "With `currency` instead of `meterKey`: money held against the prepaid credit balance in that currency " +
          "(what credits could pay now − what open money reservations hold), its settlement debited from the " +
          "balance once. Unsettled, it expires after `ttlSeconds`. `ref` names one reservation's usage: 409 when " +
          "the customer's reservations of this limit (or balance) have it; another limit's is refused at settling.",
      },
      successStatus: 201,
    })
    .input(reservationCreate.extend(reservationCustomerParams.shape))
    .output(reservationResponse)
    .mutation(async ({ ctx, input: { customerId, ...create } }) => ({
      reservation: await createReservation(scopeOf(ctx), customerId, create),
    })),

  settle: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/reservations/{id}/settle",
        tags,
        summary: "Record what a reservation actually used, freeing the rest",
        description:
          "`amount` (0 up to the amount reserved) becomes the customer's usage: usage events under the reservation's " +
          "`ref`, counted exactly once. Once per reservation: the same amount again answers the same; another " +
          "amount, an expired reservation, or one whose `ref` another reservation's usage took first, is 409.",
      },
    })
    .input(reservationSettle.extend(reservationIdParam.shape))
    .output(reservationResponse)
    .mutation(async ({ ctx, input }) => ({
      reservation: await settleReservation(scopeOf(ctx), input.id, input.amount),
    })),

  get: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/reservations/{id}",
        tags,
        summary: "A reservation: OPEN, SETTLED or EXPIRED",
        description: "EXPIRED from `expiresAt` on, unless settled before; 404 for another account's.",
      },
    })
    .input(reservationIdParam)
    .output(reservationResponse)
    .query(async ({ ctx, input }) => ({ reservation: await getReservation(scopeOf(ctx), input.id) })),
});
