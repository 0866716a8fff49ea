import type { reservationCreate } from "@billing/shared";
import type { KeyedRequestOptions, RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { Input, Reservation } from "../types.js";

export type ReservationCreateParams = Input<typeof reservationCreate>;

export interface ReservationsApi {
  /**
   * Holds `amount` units of a meter for the customer (id or externalId) when its cycle's usage + open reservations +
   * amount stay within the commitment (ConflictError `LIMIT_REACHED: <remaining> remaining` otherwise); with
   * `currency` instead of `meterKey`, money held against the customer's credit balance in it. Keyed.
   */
  create(customerId: string, input: ReservationCreateParams, options?: KeyedRequestOptions): Promise<Reservation>;
  /**
   * Records `amount` (0 to the amount reserved) as usage (a money reservation: debits it from the credit balance)
   * and frees the rest; the same amount again is safe.
   */
  settle(id: string, amount: number, options?: RequestOptions): Promise<Reservation>;
  /** The reservation as it is now: OPEN, SETTLED or EXPIRED. */
  get(id: string, options?: RequestOptions): Promise<Reservation>;
}

export function reservationsResource({ trpc, call }: Transport): ReservationsApi {
  return {
    create: (customerId, input, options) =>
      call("keyed", (attempt) => trpc.reservations.create.mutate({ customerId, ...input }, attempt), options).then(
        (r) => r.reservation,
      ),
    settle: (id, amount, options) =>
      call("safe", (attempt) => trpc.reservations.settle.mutate({ id, amount }, attempt), options).then(
        (r) => r.reservation,
      ),
    get: (id, options) =>
      call("safe", (attempt) => trpc.reservations.get.query({ id }, attempt), options).then((r) => r.reservation),
  };
}
