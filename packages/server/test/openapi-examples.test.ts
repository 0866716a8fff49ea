import { HTTP_STATUS } from "@billing/shared";
import { describe, expect, it } from "vitest";
import { useOpenApiDocument, useTestServer } from "./support/harness.js";
import { ADMIN_TOKEN } from "./support/server.js";

/**
 * What an outside tool reads in /openapi.json besides the schemas: examples that work as sent (Swagger UI's "Try it
 * out" sends them as they are), error examples that match their status, and the descriptions Spectral and Redocly
 * ask for.
 */
const server = useTestServer();
const document = useOpenApiDocument(server);

interface Operation {
  method: string;
  path: string;
  operation: any;
}
const operations = (): Operation[] =>
  Object.entries<Record<string, any>>(document.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, operation]) => ({ method, path, operation })),
  );
const jsonBody = (operation: any) => operation.requestBody?.content?.["application/json"];
const named = ({ method, path }: Operation) => `${method.toUpperCase()} ${path}`;

describe("the document describes itself", () => {
  it("has a licence and a contact", () => {
    expect(document.info.license).toMatchObject({ name: expect.any(String), identifier: expect.any(String) });
    expect(document.info.contact).toMatchObject({ name: expect.any(String) });
  });

  it("defines, with a description, every tag an operation uses, and no other", () => {
    const defined = document.tags.map(({ name }: { name: string }) => name);
    for (const tag of document.tags) expect(tag.description, tag.name).toMatch(/\S/);
    const used = new Set(operations().flatMap(({ operation }) => operation.tags));
    expect([...used].sort()).toEqual([...defined].sort());
  });

  it("gives every operation a summary and a description of its own", () => {
    for (const entry of operations()) {
      expect(entry.operation.summary, named(entry)).toMatch(/\S/);
      expect(entry.operation.description, named(entry)).toMatch(/\S/);
      expect(entry.operation.description, named(entry)).not.toBe(entry.operation.summary);
    }
  });

  it("titles each price variant, so generated clients name them by type", () => {
    const variants: any[] = document.components.schemas.Pricing.oneOf;
    const titles = variants.map(({ title }) => title);
    const types = variants.map(({ properties }) => properties.type.const);
    expect(types).toEqual(["ONE_TIME", "FLAT", "PER_UNIT", "PACKAGE", "GRADUATED", "VOLUME", "PER_SEAT"]);
    expect(titles).toEqual([
      "OneTimePricing",
      "FlatPricing",
      "PerUnitPricing",
      "PackagePricing",
      "GraduatedPricing",
      "VolumePricing",
      "PerSeatPricing",
    ]);
  });
});

describe("error examples", () => {
  it("carry the code of their status, for every status of every operation", () => {
    const codeOfStatus = Object.fromEntries(Object.entries(HTTP_STATUS).map(([code, status]) => [status, code]));
    for (const entry of operations()) {
      for (const [status, response] of Object.entries<any>(entry.operation.responses)) {
        if (Number(status) < 400) continue;
        const example = response.content["application/json"].example;
        // A reservation's 409 documents its own code, LIMIT_REACHED (a 409 of the table, listed before CONFLICT).
        const reservation = named(entry) === "POST /customers/{customerId}/reservations" && status === "409";
        const code = reservation ? "LIMIT_REACHED" : codeOfStatus[status];
        expect(HTTP_STATUS[code as keyof typeof HTTP_STATUS]).toBe(Number(status));
        expect(example, `${named(entry)} ${status}`).toMatchObject({ code, message: expect.stringMatching(/\S/) });
      }
    }
  });

  it("document 503 on exactly the operations that call the payment provider while the request waits", () => {
    const with503 = operations()
      .filter((entry) => entry.operation.responses["503"] !== undefined)
      .map(named)
      .sort();
    expect(with503).toEqual([
      "POST /customers/{customerId}/payment-provider/sync",
      "POST /invoices/{invoiceId}/collect",
    ]);
  });

  it("of 400 name a field the operation has; only an operation taking no input has no 400", () => {
    for (const entry of operations()) {
      const takesInput = (entry.operation.parameters ?? []).length > 0 || entry.operation.requestBody !== undefined;
      expect(entry.operation.responses["400"] !== undefined, named(entry)).toBe(takesInput);
      if (!takesInput) continue;
      const example = entry.operation.responses["400"].content["application/json"].example;
      const bodyRef: string | undefined = jsonBody(entry.operation)?.schema.$ref;
      const body = bodyRef ? document.components.schemas[bodyRef.split("/").pop()!] : jsonBody(entry.operation)?.schema;
      const fields = [
        ...(entry.operation.parameters ?? []).map(({ name }: { name: string }) => name),
        ...Object.keys(body?.properties ?? {}),
      ];
      expect(example.issues, named(entry)).toHaveLength(1);
      expect(fields, named(entry)).toContain(example.issues[0].path);
      expect(example.message, named(entry)).toBe(
        `Invalid input: ${example.issues[0].path}: ${example.issues[0].message}`,
      );
    }
  });
});

describe("request examples", () => {
  it("fill every required parameter and every body", () => {
    for (const entry of operations()) {
      for (const parameter of entry.operation.parameters ?? []) {
        if (parameter.required) expect(parameter.example, `${named(entry)} ${parameter.name}`).toBeDefined();
      }
      if (jsonBody(entry.operation)) expect(jsonBody(entry.operation).example, named(entry)).toBeDefined();
    }
  });

  /**
   * The order a newcomer follows: the customer and meter that later examples name come first. A path takes the rank of
   * the last prefix it starts with (a customer's entitlements come once its meter exists).
   */
  const STORY = [
    "/admin",
    "/customers",
    "/meters",
    "/contracts",
    "/measurements",
    "/events",
    "/usage",
    "/customers/{customerId}/entitlements",
    "/customers/{customerId}/reservations",
    "/credits",
  ];
  const storyRank = (path: string) => {
    const rank = STORY.findLastIndex((prefix) => path.startsWith(prefix));
    return rank === -1 ? STORY.length : rank;
  };
  /** Ids only the service makes (24 hex characters) cannot be known in advance: such an example answers 404. */
  const namesServiceId = (value: unknown) => /"[0-9a-f]{24}"/.test(JSON.stringify(value ?? null));
  /** The story's account is live: it has no test clock (404), which only a test account has. */
  const testAccountsOnly = (path: string) => path.startsWith("/test-clock");
  /**
   * What asks the payment provider itself: the story connects none (a connected one would be called over the
   * network), so the answer is 409 saying to connect one first.
   */
  const providerCalls = (path: string) => path.endsWith("/payment-provider/sync");

  it("work as sent, replayed in order on a fresh account: a success, or 404 where they name an id", async () => {
    const { token } = await server.newAccount();
    const ordered = operations().sort((a, b) => storyRank(a.path) - storyRank(b.path));
    for (const entry of ordered) {
      // A stream never ends: GET /customers/{customerId}/stream is tried by customer-stream.test.ts.
      if (entry.operation.responses?.["200"]?.content?.["text/event-stream"]) continue;
      const parameters: any[] = entry.operation.parameters ?? [];
      let path = entry.path;
      const query = new URLSearchParams();
      for (const { name, in: where, example } of parameters) {
        if (example === undefined) continue;
        if (where === "path") path = path.replace(`{${name}}`, encodeURIComponent(String(example)));
        else query.set(name, String(example));
      }
      const body = jsonBody(entry.operation)?.example;
      const url = query.size > 0 ? `${path}?${query}` : path;
      const response = await server.rest(entry.method.toUpperCase(), url, {
        token: entry.path.startsWith("/admin") ? ADMIN_TOKEN : token,
        body,
      });
      const namesId = namesServiceId(parameters.map(({ example }) => example)) || namesServiceId(body);
      const expected = namesId || testAccountsOnly(entry.path) ? 404 : providerCalls(entry.path) ? 409 : 2;
      const what = `${named(entry)}: ${JSON.stringify(response.body)}`;
      if (expected === 409) expect(response.status, what).toBe(409);
      else if (expected === 404) expect(response.status, what).toBe(404);
      else expect(Math.floor(response.status / 100), what).toBe(2);
    }
  });
});
