import { type NewToken, tokenCreate, tokenRotate } from "@billing/shared";
import { z } from "zod";
import { auditCli } from "./cli-audit.js";
import { DomainError } from "./domain/errors.js";
import type { Repositories } from "./repositories/index.js";

export const TOKENS_USAGE = `  billing tokens create <accountId> [--scope read|write|finance]
                                     create another token for an account (default write) and print it
  billing tokens list <accountId>    list an account's tokens (never their secrets)
  billing tokens rotate <tokenId> [--grace SECONDS]
                                     replace a token by a new one of the same account and scope; the old one
                                     stops working after SECONDS (default 0: at once, at most 86400)
  billing tokens revoke <tokenId>    revoke a token at once`;

type WithRepositories = <T>(work: (repositories: Repositories) => Promise<T>) => Promise<T>;

const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));

/** `[--flag value]` → the value, undefined when the flag is absent, or null when the arguments are anything else. */
function option(args: string[], flag: string): string | undefined | null {
  if (args.length === 0) return undefined;
  return args.length === 2 && args[0] === flag ? (args[1] ?? null) : null;
}

/**
 * `billing tokens …`: the same operations as the admin API, on the database directly. Exit codes: 0 done, 1 no
 * such account or token (or already rotated), 2 bad arguments.
 */
export async function tokensCommand(args: string[], withRepositories: WithRepositories): Promise<number | undefined> {
  const [action, id, ...rest] = args;
  if (!id) return undefined;
  if (action === "create") {
    const input = z.object(tokenCreate).safeParse({ scope: option(rest, "--scope") });
    if (!input.success) return usageError("--scope must be read, write or finance");
    return withRepositories(async ({ accounts, tokens, auditLog }) => {
      if (!(await accounts.exists(id))) return failure(`No account has the id ${id}`);
      const created = await tokens.create(id, input.data.scope);
      await auditCli({ auditLog }, id, "tokens.create", tokenSubject(created.tokenId, rest));
      print(created);
      return 0;
    });
  }
  if (action === "list" && rest.length === 0) {
    return withRepositories(async ({ accounts, tokens }) => {
      if (!(await accounts.exists(id))) return failure(`No account has the id ${id}`);
      print({ tokens: await tokens.list(id) });
      return 0;
    });
  }
  if (action === "rotate") {
    const grace = option(rest, "--grace");
    const graceSeconds = grace === undefined ? 0 : /^\d{1,6}$/.test(grace ?? "") ? Number(grace) : Number.NaN;
    const input = z.object(tokenRotate).safeParse({ graceSeconds });
    if (!input.success) return usageError("--grace must be a whole number of seconds, 0 to 86400");
    return withRepositories(async ({ tokens, auditLog }) => {
      let rotated: NewToken | undefined;
      try {
        rotated = await tokens.rotate(id, input.data.graceSeconds);
      } catch (error) {
        if (error instanceof DomainError) return failure(`Token ${id}: ${error.message}`);
        throw error;
      }
      if (!rotated) return failure(`No live token has the id ${id}`);
      const accountId = await tokens.accountOf(id);
      if (accountId) await auditCli({ auditLog }, accountId, "tokens.rotate", tokenSubject(rotated.tokenId, rest));
      print(rotated);
      return 0;
    });
  }
  if (action === "revoke" && rest.length === 0) {
    return withRepositories(async ({ tokens, auditLog }) => {
      const revoked = await tokens.revoke(id);
      if (!revoked) return failure(`No live token has the id ${id}`);
      const accountId = await tokens.accountOf(id);
      if (accountId) await auditCli({ auditLog }, accountId, "tokens.revoke", tokenSubject(id, []));
      print({ tokenId: id, revokedAt: revoked.revokedAt.toISOString() });
      return 0;
    });
  }
  return undefined;
}

/** A token operation's entry: the token it made or ended, and the options given (`--scope`, `--grace`). */
const tokenSubject = (tokenId: string, options: string[]) => ({
  resource: { type: "token", id: tokenId },
  references: [],
  changes: options.filter((option) => option.startsWith("--")).map((option) => option.slice(2)),
});

/** Exit code 1 with the reason on stderr. */
function failure(message: string) {
  console.error(message);
  return 1;
}

function usageError(message: string) {
  console.error(`${message}\n\nUsage:\n${TOKENS_USAGE}`);
  return 2;
}
