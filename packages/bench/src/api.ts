import { setTimeout } from "node:timers/promises";
import type { AppRouter } from "@billing/server";
import { createTRPCClient, httpLink } from "@trpc/client";

/** REST calls of one account; any status other than the expected one stops the benchmark. */
export interface Api {
  token: string;
  accountId: string;
  call<T = any>(method: string, path: string, body?: unknown, expectedStatus?: number): Promise<T>;
  trpc: ReturnType<typeof createTRPCClient<AppRouter>>;
}

/** An answer with another status than the one expected. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** How often a call refused for too many in flight (429) is sent again, after the Retry-After the answer gives. */
const RETRIES_AFTER_429 = 5;

async function request(url: string, method: string, token: string, body: unknown, expectedStatus: number) {
  for (let attempt = 0; ; attempt += 1) {
    const response = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    // A loaded machine answers the set-up's concurrent calls slower than the token's in-flight wait: as a client would.
    if (response.status === 429 && expectedStatus !== 429 && attempt < RETRIES_AFTER_429) {
      await setTimeout(Number(response.headers.get("retry-after") ?? 1) * 1000);
      continue;
    }
    if (response.status !== expectedStatus)
      throw new ApiError(`${method} ${url}: ${response.status} ${text.slice(0, 500)}`, response.status);
    return text ? JSON.parse(text) : undefined;
  }
}

/** The calls of one account with this token. */
function accountApi(url: string, accountId: string, token: string): Api {
  return {
    token,
    accountId,
    call: (method, path, body, expectedStatus = 200) => request(url + path, method, token, body, expectedStatus),
    trpc: createTRPCClient<AppRouter>({
      links: [httpLink({ url: `${url}/trpc`, headers: () => ({ authorization: `Bearer ${token}` }) })],
    }),
  };
}

/** A new account and its first token, made through the admin API as an operator would. */
export async function createBenchAccount(url: string, adminToken: string): Promise<Api> {
  const created = await request(`${url}/admin/accounts`, "POST", adminToken, { name: `bench-${Date.now()}` }, 201);
  return accountApi(url, created.account.id as string, created.token as string);
}

/** Another token of the account (each token has its own calls-in-flight limit), made through the admin API. */
export async function anotherToken(url: string, adminToken: string, api: Api): Promise<Api> {
  const created = await request(`${url}/admin/accounts/${api.accountId}/tokens`, "POST", adminToken, {}, 201);
  return accountApi(url, api.accountId, created.token as string);
}
