import type { measurementCreate } from "@billing/shared";
import type { RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { Input, Measurement } from "../types.js";

export type MeasurementCreateParams = Input<typeof measurementCreate>;

export interface MeasurementsApi {
  /** A customer's usage of a meter for a day; a second call for that day replaces the value. Safe. */
  create(input: MeasurementCreateParams, options?: RequestOptions): Promise<Measurement>;
}

export function measurementsResource({ trpc, call }: Transport): MeasurementsApi {
  return {
    // Safe: repeating an upsert of the same value changes nothing.
    create: (input, options) =>
      call("safe", (attempt) => trpc.measurements.create.mutate(input, attempt), options).then((r) => r.measurement),
  };
}
