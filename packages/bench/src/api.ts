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

async function request(url: string, method: string, token: string, body: unknown, expectedStatus: number) {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expectedStatus)
    throw new ApiError(`${method} ${url}: ${response.status} ${text.slice(0, 500)}`, response.status);
  return text ? JSON.parse(text) : undefined;
}

/** A new account and its first token, made through the admin API as an operator would. */
export async function createBenchAccount(url: string, adminToken: string): Promise<Api> {
  const created = await request(`${url}/admin/accounts`, "POST", adminToken, { name: `bench-${Date.now()}` }, 201);
  const token = created.token as string;
  return {
    token,
    accountId: created.account.id as string,
    call: (method, path, body, expectedStatus = 200) => request(url + path, method, token, body, expectedStatus),
    trpc: createTRPCClient<AppRouter>({
      links: [httpLink({ url: `${url}/trpc`, headers: () => ({ authorization: `Bearer ${token}` }) })],
    }),
  };
}
