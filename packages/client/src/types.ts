import type { AppRouter } from "@billing/server";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";

/** Inputs and outputs of every operation, inferred from the server's router (itself typed by the shared schemas). */
export type Inputs = inferRouterInputs<AppRouter>;
export type Outputs = inferRouterOutputs<AppRouter>;

/** List parameters of `listAll`/`queryAll`: the cursor is the paginator's business. */
export type WithoutCursor<T> = Omit<T, "cursor">;
