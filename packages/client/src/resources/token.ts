import type { RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { CurrentToken } from "../types.js";

export interface TokenApi {
  /** The token this client calls with: its id, its account and its scope (`read` tokens only read). */
  current(options?: RequestOptions): Promise<CurrentToken>;
}

export function tokenResource({ trpc, call }: Transport): TokenApi {
  return {
    current: (options) =>
      call("safe", (attempt) => trpc.token.current.query({}, attempt), options).then((r) => r.token),
  };
}
