import type { Db } from "mongodb";
import { createAccountRepository } from "./accounts.js";
import { createCustomerRepository } from "./customers.js";
import { createTokenRepository } from "./tokens.js";

/** Every repository of the service, each owning its collection and indexes. */
export function createRepositories(db: Db) {
  return {
    accounts: createAccountRepository(db),
    tokens: createTokenRepository(db),
    customers: createCustomerRepository(db),
  };
}
export type Repositories = ReturnType<typeof createRepositories>;

/** Idempotent: safe on every start-up and from several instances at once. */
export async function ensureIndexes(repositories: Repositories) {
  for (const repository of Object.values(repositories)) await repository.ensureIndexes();
}
