import type { AppRouter } from "@billing/server";
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";

export type Api = ReturnType<typeof createTRPCClient<AppRouter>>;
/** What each procedure answers, typed by the server's router. */
export type Outputs = inferRouterOutputs<AppRouter>;
/** What each procedure takes. */
export type Inputs = inferRouterInputs<AppRouter>;

/**
 * The service's root: the page's <base href> is `<root>/console/` (the server writes it, under PUBLIC_URL's path when
 * one is set), so the API is found beside the console wherever a proxy mounts both.
 */
export const serviceRoot = () => new URL("..", document.baseURI).href.replace(/\/$/, "");

/**
 * A tRPC client typed by the server's router: every call carries the token as its Authorization header, and queries
 * go as POST (as the SDK sends them) so that no input lands in a URL or a proxy's log. No batching: each call gets
 * its own answer, hence its own `X-Request-Id` to show when it fails.
 */
export function createApi(token: string): Api {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${serviceRoot()}/trpc`,
        methodOverride: "POST",
        headers: () => ({ authorization: `Bearer ${token}` }),
      }),
    ],
  });
}

/** What a failed call shows: the API's message and code, and the request id to quote to whoever runs the service. */
export interface ApiProblem {
  message: string;
  code: string;
  requestId: string | undefined;
  /** A 400's problems, each naming the field of the input it is about (`amount`, `products.0.pricing`). */
  issues?: { path: string; message: string }[];
}

export function problemOf(error: unknown): ApiProblem {
  if (!(error instanceof TRPCClientError)) {
    // A form's own check before any call (JSON that does not parse) names its field as the API would.
    const issues = (error as { issues?: ApiProblem["issues"] } | null)?.issues;
    return {
      message: String(error instanceof Error ? error.message : error),
      code: "CLIENT",
      requestId: undefined,
      ...(Array.isArray(issues) && { issues }),
    };
  }
  const response = (error.meta as { response?: Response } | undefined)?.response;
  const data = error.data as { code?: string; issues?: ApiProblem["issues"] } | undefined;
  return {
    message: error.message,
    code: data?.code ?? (response ? `HTTP ${response.status}` : "CONNECTION_ERROR"),
    requestId: response?.headers.get("x-request-id") ?? undefined,
    ...(data?.issues && { issues: data.issues }),
  };
}
