import type { AdminClient } from "../api.js";
import type { Transport } from "../transport.js";

export function adminResource({ trpc, call }: Transport): AdminClient {
  return {
    accounts: {
      create: (name) => call((signal) => trpc.admin.createAccount.mutate({ name }, { signal }), false),
    },
    tokens: {
      create: (accountId, params = {}) => call((signal) => trpc.admin.createToken.mutate({ ...params, accountId }, { signal }), false),
      list: (accountId) => call((signal) => trpc.admin.listTokens.query({ accountId }, { signal }), true),
      rotate: (tokenId, params = {}) => call((signal) => trpc.admin.rotateToken.mutate({ ...params, tokenId }, { signal }), false),
      revoke: (tokenId) => call((signal) => trpc.admin.revokeToken.mutate({ tokenId }, { signal }), false),
    },
  };
}
