import type { MeasurementsApi } from "../api.js";
import type { Transport } from "../transport.js";

export function measurementsResource({ trpc, call }: Transport): MeasurementsApi {
  return {
    // Retried: repeating an upsert of the same value changes nothing.
    create: (input) => call((signal) => trpc.measurements.create.mutate(input, { signal }), true).then(({ measurement }) => measurement),
  };
}
