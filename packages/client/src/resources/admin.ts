import type { AccountUpdate } from "@billing/shared";
import type { RequestOptions, UnretriedRequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type {
  Account,
  AccountCreated,
  NewToken,
  RevokedToken,
  TokenList,
  TokenScope,
  WithCurrencyCodes,
} from "../types.js";

/**
 * Operator calls, made with the server's ADMIN_TOKEN. The changes are never retried (mode `never`): each creates or
 * revokes a secret, and the service stores no answer holding one under an Idempotency-Key.
 */
export type AccountUpdateParams = WithCurrencyCodes<AccountUpdate>;

export interface AdminClient {
  accounts: {
    create(name: string, options?: UnretriedRequestOptions): Promise<AccountCreated>;
    /**
     * A test account: its billing time is its own clock, starting at `testClock.at`, moved by its
     * `testClock.advance` (an account with no invoice becomes one with `update(accountId, { testClock })`).
     */
    createTest(name: string, testClock: { at: string }, options?: UnretriedRequestOptions): Promise<AccountCreated>;
    /** The account and its settings (invoice prefix, seller details, default tax rates, currency, payment terms). */
    get(accountId: string, options?: RequestOptions): Promise<Account>;
    /** Changes the settings given; `null` clears an optional one. */
    update(accountId: string, params: AccountUpdateParams, options?: UnretriedRequestOptions): Promise<Account>;
  };
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
      createTest: (name, testClock, options) =>
        call("never", (attempt) => trpc.admin.createAccount.mutate({ name, testClock }, attempt), options),
      get: (accountId, options) =>
        call("safe", (attempt) => trpc.admin.getAccount.query({ accountId }, attempt), options).then((r) => r.account),
      update: (accountId, params, options) =>
        call("never", (attempt) => trpc.admin.updateAccount.mutate({ ...params, accountId }, attempt), options).then(
          (r) => r.account,
        ),
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
