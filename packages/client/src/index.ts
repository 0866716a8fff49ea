/**
 * The SDK (issue 4) builds on these: the server's router type drives every method's input and output.
 */
export type { AppRouter } from "@billing/server";
