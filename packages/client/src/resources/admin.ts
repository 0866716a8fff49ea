import type { AdminClient } from "../api.js";
import type { Transport } from "../transport.js";

export function adminResource({ trpc, call }: Transport): AdminClient {
  return {
    accounts: {
      create: (name) => call((signal) => trpc.admin.createAccount.mutate({ name }, { signal }), false),
    },
    tokens: {
      create: (accountId) => call((signal) => trpc.admin.createToken.mutate({ accountId }, { signal }), false),
      revoke: (tokenId) => call((signal) => trpc.admin.revokeToken.mutate({ tokenId }, { signal }), false),
    },
  };
}
