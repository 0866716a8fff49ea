import type { RequestOptions, UnretriedRequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { AccountCreated, NewToken, RevokedToken, TokenList, TokenScope } from "../types.js";

/**
 * Operator calls, made with the server's ADMIN_TOKEN. The changes are never retried (mode `never`): each creates or
 * revokes a secret, and the service stores no answer holding one under an Idempotency-Key.
 */
export interface AdminClient {
  accounts: { create(name: string, options?: UnretriedRequestOptions): Promise<AccountCreated> };
  tokens: {
    /** A new token; `scope` `read` may only read, `write` (the default) may do everything. */
    create(accountId: string, params?: { scope?: TokenScope }, options?: UnretriedRequestOptions): Promise<NewToken>;
    /** Every token of the account, revoked ones included, oldest first; never their secrets. */
    list(accountId: string, options?: RequestOptions): Promise<TokenList>;
    /** A new token of the same account and scope; the old one stops working after `graceSeconds` (default 0). */
    rotate(tokenId: string, params?: { graceSeconds?: number }, options?: UnretriedRequestOptions): Promise<NewToken>;
    revoke(tokenId: string, options?: UnretriedRequestOptions): Promise<RevokedToken>;
  };
}

export function adminResource({ trpc, call }: Transport): AdminClient {
  return {
    accounts: {
      create: (name, options) =>
        call("never", (attempt) => trpc.admin.createAccount.mutate({ name }, attempt), options),
    },
    tokens: {
      create: (accountId, params = {}, options) =>
        call("never", (attempt) => trpc.admin.createToken.mutate({ ...params, accountId }, attempt), options),
      list: (accountId, options) =>
        call("safe", (attempt) => trpc.admin.listTokens.query({ accountId }, attempt), options),
      rotate: (tokenId, params = {}, options) =>
        call("never", (attempt) => trpc.admin.rotateToken.mutate({ ...params, tokenId }, attempt), options),
      revoke: (tokenId, options) =>
        call("never", (attempt) => trpc.admin.revokeToken.mutate({ tokenId }, attempt), options),
    },
  };
}
