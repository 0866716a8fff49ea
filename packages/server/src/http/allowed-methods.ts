import type { OpenAPIObject } from "trpc-to-openapi";

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

interface Route {
  /** As the document names it (`/invoices/{invoiceId}`): the route label of the request metrics. */
  template: string;
  pattern: RegExp;
  /** Literal segments: the more, the more specific (`/invoices/preview` before `/invoices/{invoiceId}`). */
  literals: number;
  methods: string[];
}

/** Matches as trpc-to-openapi routes: case-insensitive, one parameter per non-empty segment, outer slashes ignored. */
const normalize = (path: string) => `/${path.replace(/^\/|\/$/g, "")}`;
const escapeRegExp = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, "\\$&");

function route(template: string, methods: string[]): Route {
  const segments = normalize(template).split("/").slice(1);
  const pattern = segments.map((segment) => (/^\{\w+\}$/.test(segment) ? "[^/]+" : escapeRegExp(segment))).join("/");
  return {
    template,
    pattern: new RegExp(`^/${pattern}$`, "i"),
    literals: segments.filter((segment) => !segment.startsWith("{")).length,
    methods,
  };
}

export interface PathRoute {
  /** The template of the route meant (`/customers/{customerId}`). */
  template: string;
  /** Its methods, sorted. */
  methods: string[];
}

/**
 * The route of a path: the document's operations, plus `GET` on the service's own pages. A path no route matches is
 * unknown (404); on a known path, any method but `methods` is 405 with these in `Allow`. Where a literal path and a
 * parameter both match (`/invoices/preview`), the literal one is the resource meant.
 */
export function routesOf(document: OpenAPIObject, getPages: string[]): (path: string) => PathRoute | undefined {
  const routes = [
    ...Object.entries(document.paths ?? {}).map(([template, item]) =>
      route(
        template,
        Object.keys(item as object)
          .filter((key) => HTTP_METHODS.has(key))
          .map((method) => method.toUpperCase()),
      ),
    ),
    ...getPages.map((page) => route(page, ["GET"])),
  ];
  return (path) => {
    const matches = routes.filter((candidate) => candidate.pattern.test(normalize(path)));
    if (matches.length === 0) return undefined;
    const literals = Math.max(...matches.map((match) => match.literals));
    const meant = matches.filter((match) => match.literals === literals);
    const methods = meant.flatMap((match) => match.methods);
    return { template: meant[0]?.template ?? path, methods: [...new Set(methods)].sort() };
  };
}
