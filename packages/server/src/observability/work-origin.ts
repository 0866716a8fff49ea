import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Where a database command comes from: answering an HTTP call, the webhook worker's polls and deliveries, or the
 * instance's other background work (the scheduler, the other workers).
 */
export type WorkOrigin = "request" | "webhooks" | "background";

const origin = new AsyncLocalStorage<WorkOrigin>();

/** Runs `handle` (an HTTP request's handling) so that every command it sends, however deep, counts as a request's. */
export const asRequestWork = <T>(handle: () => T): T => origin.run("request", handle);

/** Runs `handle` (a task of the webhook worker) so that every command it sends counts as the webhooks'. */
export const asWebhookWork = <T>(handle: () => T): T => origin.run("webhooks", handle);

/** The origin of the code running now: outside any request's or webhook task's, the other background work. */
export const workOrigin = (): WorkOrigin => origin.getStore() ?? "background";
