import type { AnyRouter } from "@trpc/server";
import type { Meta } from "../context.js";

type HttpMethod = "get" | "post" | "patch" | "put" | "delete";

/** Procedures whose `meta.successStatus` differs from 200, read once from the router. */
export function successStatusByPath(router: AnyRouter) {
  return Object.entries(router._def.procedures as Record<string, { _def: { meta?: Meta } }>).flatMap(
    ([procedurePath, procedure]) => {
      const meta = procedure._def.meta;
      if (!meta?.openapi || !meta.successStatus) return [];
      return [
        {
          procedurePath,
          method: meta.openapi.method.toLowerCase() as HttpMethod,
          path: meta.openapi.path,
          status: meta.successStatus,
        },
      ];
    },
  );
}
