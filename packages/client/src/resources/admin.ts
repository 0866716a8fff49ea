import type { Transport } from "../transport.js";

/** Operator calls, authorized by the server's ADMIN_TOKEN. None is retried: each creates or revokes a secret. */
export function adminResource({ trpc, call }: Transport) {
  return {
    accounts: {
      /** A new account and its first token (shown only in this response). */
      create: (name: string) => call((signal) => trpc.admin.createAccount.mutate({ name }, { signal }), false),
    },
    tokens: {
      create: (accountId: string) => call((signal) => trpc.admin.createToken.mutate({ accountId }, { signal }), false),
      revoke: (tokenId: string) => call((signal) => trpc.admin.revokeToken.mutate({ tokenId }, { signal }), false),
    },
  };
}
