import type { Transport } from "../transport.js";
import type { Inputs } from "../types.js";

export function measurementsResource({ trpc, call }: Transport) {
  return {
    /**
     * Records a customer's usage of a meter for a day; a second call for the same day replaces the value.
     * Retried on transient failures: repeating an upsert of the same value changes nothing.
     */
    create: (input: Inputs["measurements"]["create"]) =>
      call((signal) => trpc.measurements.create.mutate(input, { signal }), true).then(({ measurement }) => measurement),
  };
}
