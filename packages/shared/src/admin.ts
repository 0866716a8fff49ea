import { z } from "zod";
import { requiredText, timestamp } from "./common.js";

export const account = z
  .object({ id: z.string(), name: z.string(), createdAt: timestamp })
  .meta({ id: "Account" });
export type Account = z.infer<typeof account>;

export const accountCreate = z.strictObject({ name: requiredText() });

/** A token's secret appears in exactly one response, the one that creates it. */
export const newToken = z.object({
  tokenId: z.string(),
  token: z.string().meta({ description: "Bearer token; shown only once, stored only as a hash." }),
});
export type NewToken = z.infer<typeof newToken>;

export const accountCreated = z.object({ account, token: z.string() });

export const revokedToken = z.object({ tokenId: z.string(), revokedAt: timestamp });
export type RevokedToken = z.infer<typeof revokedToken>;
export type AccountCreated = z.infer<typeof accountCreated>;
