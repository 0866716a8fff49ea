import { AsyncLocalStorage } from "node:async_hooks";

/** Where a database command comes from: answering an HTTP call, or the instance's own background work. */
export type WorkOrigin = "request" | "background";

const origin = new AsyncLocalStorage<WorkOrigin>();

/** Runs `handle` (an HTTP request's handling) so that every command it sends, however deep, counts as a request's. */
export const asRequestWork = <T>(handle: () => T): T => origin.run("request", handle);

/** The origin of the code running now: outside any request's handling, the scheduler's and the workers' work. */
export const workOrigin = (): WorkOrigin => origin.getStore() ?? "background";
