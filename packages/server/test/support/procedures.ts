import { TRPCClientError } from "@trpc/client";
import type { AnyRouter } from "@trpc/server";
import { appRouter } from "../../src/routers/index.js";
import type { TestServer } from "./server.js";

interface ProcedureDef {
  _def: { type: "query" | "mutation"; meta?: { openapi?: { method: string; path: string } } };
}

/** Every procedure of the router, by its path ("customers.get"), as tRPC flattens them. */
export const procedures = (appRouter as AnyRouter)._def.procedures as Record<string, ProcedureDef>;

export type Transport = "REST" | "tRPC";

/**
 * A procedure called by its path over tRPC, or over REST on the route its meta declares (path parameters in the
 * path, the rest in the query string of a GET or DELETE, else in the body), answered as a status and a JSON body.
 */
export async function callProcedure(
  server: TestServer,
  transport: Transport,
  token: string,
  path: string,
  input: Record<string, unknown>,
): Promise<{ status: number; body: any }> {
  const procedure = procedures[path]!._def;
  if (transport === "tRPC") {
    const client = path.split(".").reduce<any>((node, key) => node[key], server.trpc(token));
    try {
      return { status: 200, body: await (procedure.type === "query" ? client.query(input) : client.mutate(input)) };
    } catch (error) {
      if (!(error instanceof TRPCClientError)) throw error;
      return { status: error.data.httpStatus as number, body: { code: error.data.code, message: error.message } };
    }
  }
  const { method, path: route } = procedure.meta!.openapi!;
  const rest = { ...input };
  const url = route.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(String(value));
  });
  const inQuery = method === "GET" || method === "DELETE";
  const query = new URLSearchParams(Object.entries(rest).map(([name, value]) => [name, String(value)]));
  const target = inQuery && query.size > 0 ? `${url}?${query}` : url;
  const answer = await server.rest(method, target, { token, ...(!inQuery && { body: rest }) });
  return { status: answer.status, body: answer.body };
}
