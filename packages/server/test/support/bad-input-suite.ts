import { HTTP_STATUS } from "@billing/shared";
import type { AnyRouter } from "@trpc/server";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { ZodType } from "zod";
import { appRouter } from "../../src/routers/index.js";
import { expectError } from "./assertions.js";
import {
  type FieldPath,
  fieldPositions,
  type JsonSchema,
  looseEncode,
  poisonValue,
  STRAY_KEYS,
  setOwn,
  toJsonText,
  withValueAt,
} from "./bad-input.js";
import { billingAccount, monthly } from "./billing.js";
import { FULL_CUSTOMER } from "./fixtures.js";
import { useTestServer } from "./harness.js";
import { ADMIN_TOKEN } from "./server.js";
import { writesTo } from "./stored-writes.js";

/**
 * The property test of bad input, generated from the OpenAPI document, shared by test/bad-input.<group>.test.ts:
 * each runs the operations whose OpenAPI tag its group lists (BAD_INPUT_GROUPS below), so that no file grows past
 * ~60 s as operations are added. For each operation: never a 5xx; a status the document lists for the operation;
 * every error in the documented `{ code, message, issues? }` with the status of its code; 413, 415 or 400 for a body
 * refused by size, media type, JSON syntax or the input schema; and no refused request changes stored data.
 * A new tag goes into one group here (test/bad-input.coverage.test.ts fails until it does); a group that passes ~60 s
 * is split into a new group and its file. The seeds below are shared: every file seeds the same account (~3 s).
 */

/** The groups, one file each (test/bad-input.<group>.test.ts), by the OpenAPI tags of their operations. */
export const BAD_INPUT_GROUPS: Record<string, readonly string[]> = {
  accounts: ["admin", "tokens", "audit-log", "customers", "contracts", "coupons"],
  usage: ["measurements", "meters", "usage", "events", "reservations", "alerts", "entitlements", "credits"],
  invoicing: ["invoices", "credit-notes", "billing", "test-clocks", "reports", "exports", "collection"],
  catalog: ["plans", "tax-rates", "webhooks"],
};

/** The groups an operation of the document belongs to, by its tags (exactly one, says the coverage test). */
export const groupsOfTags = (tags: readonly string[] = []) =>
  Object.keys(BAD_INPUT_GROUPS).filter((group) => BAD_INPUT_GROUPS[group]!.some((tag) => tags.includes(tag)));

/** Documents (PDF, HTML) are raw routes, not procedures: invoice-documents.test.ts covers their bad input. */
export const isJsonOperation = (operation: { responses: Record<string, { content?: object }> }) =>
  Object.keys(operation.responses["200"]?.content ?? {}).every((mediaType) => mediaType === "application/json");

/** Per operation: requests that cannot write (refused bodies, reads), and requests that may be accepted. */
const REFUSED_RUNS = 100;
const WRITE_RUNS = 20;
const MAX_BODY_BYTES = 5 * 1024 * 1024;

interface Parameter {
  name: string;
  in: "path" | "query";
  required?: boolean;
  schema: JsonSchema;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  bodySchema: JsonSchema | undefined;
  /** The statuses the document lists for the operation. */
  statuses: string[];
  input: ZodType;
  tags: string[];
}
interface FuzzRequest {
  pathParams: Record<string, string>;
  query: string;
  body: string | undefined;
  contentType: string | undefined;
}

/** Registers the bad-input tests of one group's operations (and, with `deepNesting`, the nesting tests). */
export function badInputSuite(group: string, { deepNesting = false } = {}) {
  const server = useTestServer();
  let token: string;
  let components: Record<string, JsonSchema>;
  let operations: Operation[];
  /** Real values for path and query parameters, so that requests also reach the code behind the lookups. */
  let seeds: Record<string, string[]>;
  /** One valid body per operation, which the generators then break. */
  let baseBodies: Record<string, unknown>;

  beforeAll(async () => {
    const account = await billingAccount(server);
    token = account.token;
    const second = await account.post("/customers", { name: "Second Co", externalId: "ext-2" }, 201);
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [
        {
          displayName: "Seats",
          catalogProductId: "seats",
          commitment: { units: 2, price: 10, scheduling: monthly(1) },
        },
      ],
    });
    await account.measure("seats", "2024-01-15", 3);
    const granted = await account.grant(5);
    await account.post("/events", {
      events: [{ name: "api_call", timestamp: "2024-01-02T00:00:00Z", customerAlias: "Billed Co", ref: "seed-1" }],
    });
    const endpoint = await account.post("/webhook-endpoints", { url: "https://hooks.example.com/billing" }, 201);
    const meter = await account.post("/meters", { key: "api_calls", eventName: "api_call", aggregation: "COUNT" }, 201);
    const taxRate = await account.post("/tax-rates", { code: "VAT20", name: "VAT", rate: 20 }, 201);
    const deliveries = await server.rest("GET", `/webhook-endpoints/${endpoint.endpoint.id}/deliveries`, { token });
    const seededEvents = await server.rest(
      "GET",
      "/events?startTime=2024-01-01T00:00:00Z&endTime=2024-01-03T00:00:00Z",
      {
        token,
      },
    );
    const run = await account.run("2024-03-01T00:00:00Z");
    const creditNote = { invoiceId: run.invoiceIds[0], amount: 1, reason: "OTHER", refund: "OFFSET" };
    const note = await account.post("/credit-notes", creditNote, 201);
    const spareToken = await server.rest("POST", `/admin/accounts/${account.accountId}/tokens`, { token: ADMIN_TOKEN });
    const entries = await account.ledger();
    const page = await server.rest("GET", "/customers?limit=1", { token });
    // Thresholds no fuzzed usage reaches: evaluation after ingestion stores no crossing while refusals are checked.
    const alertBody = { customerId: account.customerId, meterKey: "api_calls", thresholds: [1e8, 2e8], period: "DAY" };
    const alert = await account.post("/alerts", alertBody, 201);
    const planTerms = { products: [{ displayName: "Flat", pricing: { type: "FLAT", price: 5 } }] };
    const plan = await account.post("/plans", { key: "seed-plan", name: "Seed", currency: "USD", ...planTerms }, 201);
    await account.post("/plans/seed-plan/versions", planTerms, 201);
    const migrationBody = { fromVersions: [1], toVersion: 2, effective: "NEXT_CYCLE" };
    const migration = await account.post("/plans/seed-plan/migrations", migrationBody, 202);
    await account.post("/coupons", { code: "SEED10", discount: { type: "PERCENT", value: 10 }, duration: "ONCE" }, 201);
    const reservationBody = { meterKey: "api_calls", amount: 1, ttlSeconds: 86_400, ref: "seed-reservation" };
    const reservation = await account.post(`/customers/${second.customer.id}/reservations`, reservationBody, 201);
    // OPEN (no events): a commit can be accepted once, a batch held by it.
    const backfillBody = {
      meterKey: "api_calls",
      from: "2024-01-01T00:00:00Z",
      to: "2024-02-01T00:00:00Z",
      mode: "ADD",
    };
    const backfill = await account.post("/backfills", backfillBody, 202);

    seeds = {
      customerId: [account.customerId, second.customer.id, "ext-2"],
      contractId: [contract.id],
      invoiceId: run.invoiceIds,
      name: ["Billed Co", "Second Co"],
      accountId: [account.accountId],
      tokenId: [spareToken.body.tokenId],
      cursor: [page.body.nextCursor, entries[0].id],
      limit: ["1", "1000", "10"],
      startTime: ["2024-01-01T00:00:00Z"],
      endTime: ["2024-02-01T00:00:00+02:00"],
      eventName: ["api_call"],
      meterId: [meter.meter.id, "api_calls"],
      taxRateId: [taxRate.taxRate.id, "VAT20"],
      eventId: [seededEvents.body.events[0].id],
      entryId: [granted.entry.id],
      meterKey: ["api_calls", "seats"],
      alertId: [alert.alert.id],
      startDate: ["2024-01-01"],
      endDate: ["2024-02-01"],
      endpointId: [endpoint.endpoint.id],
      deliveryId: [deliveries.body.deliveries[0].id],
      creditNoteId: [note.creditNote.id],
      planId: [plan.plan.id, "seed-plan"],
      version: ["1", "2"],
      migrationId: [migration.migration.id],
      code: ["SEED10"],
      id: [reservation.reservation.id],
      backfillId: [backfill.backfill.id],
    };
    const event = {
      name: "api_call",
      timestamp: "2024-01-03T10:00:00.123Z",
      customerAlias: "Billed Co",
      ref: "fuzz-ref",
      data: { region: "eu" },
    };
    const product = {
      displayName: "Seats",
      catalogProductId: "seats",
      description: "d",
      productErpId: "erp",
      scheduling: monthly(31),
      pricing: { type: "ONE_TIME", price: 1.5 },
      commitment: { units: 1, price: 2, scheduling: monthly(1), overageStrategy: "IGNORE" },
      paymentTerm: "Prepayment",
    };
    const customField = {
      serviceCustomFieldName: "tier",
      valueType: "String",
      integrationSource: "erp",
      fieldPath: "a.b",
      value: { nested: [1] },
    };
    baseBodies = {
      "POST /admin/accounts": { name: "Fuzzed tenant" },
      "POST /customers": FULL_CUSTOMER,
      "PATCH /customers/{customerId}": { taxId: "FR2", address: { city: "Lyon" } },
      "POST /contracts": {
        customerId: account.customerId,
        name: "Fuzzed plan",
        startDate: "2024-01-01T00:00:00+01:00",
        endDate: "2025-01-01T00:00:00Z",
        signatureDate: "2023-12-01T00:00:00Z",
        crmOpportunityId: "opp",
        accountManager: "Bob",
        shouldProRateInvoices: true,
        autoRenewContract: false,
        status: "InReview",
        products: [product],
        productGroups: [
          { displayName: "Bundle", products: [product], baseAmount: 3, commitment: { units: 1, price: 1 } },
        ],
        customFields: [customField],
        customFieldValues: [{ customFieldDefinitionId: "def", value: "v", fieldName: "f" }],
        minimumCommitment: { amount: 100, period: "TERM" },
        discounts: [
          {
            type: "AMOUNT",
            value: 5,
            products: ["Seats"],
            cycles: 2,
            from: "2024-01-01T00:00:00Z",
            until: "2024-06-01T00:00:00Z",
          },
        ],
      },
      "POST /contracts/{contractId}/seats": { product: "Seats", quantity: 3, effectiveFrom: "2024-04-01T00:00:00Z" },
      "POST /coupons": {
        code: "FUZZ5",
        discount: { type: "AMOUNT", value: 5 },
        currency: "USD",
        maxRedemptions: 3,
        redeemBy: "2030-01-01T00:00:00Z",
        duration: { cycles: 2 },
      },
      "POST /contracts/{contractId}/coupons": { code: "SEED10" },
      "POST /customers/{customerId}/reservations": {
        meterKey: "api_calls",
        amount: 1,
        ttlSeconds: 60,
        ref: "fuzz-res",
      },
      "POST /reservations/{id}/settle": { amount: 0 },
      "POST /events/{eventId}/void": { reason: "fuzzed" },
      "POST /backfills": {
        meterKey: "api_calls",
        from: "2024-01-03T00:00:00Z",
        to: "2024-01-04T00:00:00Z",
        mode: "ADD",
        events: [{ ...event, ref: "fuzz-backfill" }],
      },
      "POST /measurements": {
        customerId: account.customerId,
        meterId: "seats",
        usageDate: { year: 2024, month: 2, day: 29 },
        value: 1.25,
      },
      "POST /credits": {
        customerId: account.customerId,
        amount: 0.000001,
        type: "Grant",
        contractId: contract.id,
        invoiceId: "inv",
        erpId: "erp",
      },
      "POST /events": { events: [event, { ...event, ref: "fuzz-ref-2", data: {} }] },
      "POST /invoices/preview": { contractId: contract.id, at: "2024-02-10T00:00:00Z" },
      "POST /invoices/simulate": {
        customerId: account.customerId,
        startDate: "2024-01-01T00:00:00Z",
        endDate: "2024-03-01T00:00:00Z",
        products: [product],
        contractId: contract.id,
      },
      "POST /invoices/{invoiceId}/payments": {
        amount: 0.01,
        date: "2024-03-02T00:00:00Z",
        paymentMethod: "wire",
        transactionId: "fuzz-tx",
        note: "n",
      },
      "POST /credit-notes": { invoiceId: run.invoiceIds[0], amount: 0.01, reason: "OTHER", refund: "OFFSET" },
      "POST /exports": { kind: "invoices", from: "2026-01-01T00:00:00Z", to: "2026-02-01T00:00:00Z", format: "csv" },
      "POST /billing-runs": { at: "2024-01-05T00:00:00Z" },
      // The account is live: every advance is 404 (it has no clock), whatever the body.
      "POST /test-clock/advance": { to: "2024-01-05T00:00:00Z" },
      "POST /meters": {
        key: "fuzz-meter",
        displayName: "Fuzzed",
        eventName: "api_call",
        aggregation: "SUM",
        valueProperty: "n",
        filters: [{ property: "region", in: ["eu"] }],
      },
      "PATCH /meters/{meterId}": { displayName: "Renamed" },
      "POST /alerts": {
        customerId: account.customerId,
        meterKey: "api_calls",
        thresholds: [1e8, 2.5e8],
        period: "CYCLE",
      },
      "POST /tax-rates": { code: "FUZZ", name: "Fuzzed", rate: 19.5, inclusive: true },
      // A provider at a closed local port: whatever asks it is refused at once, never sent over the network.
      "PUT /payment-providers/stripe": {
        secretKey: "sk_test_fuzz000000",
        webhookSecret: "whsec_fuzz000000",
        apiBase: "http://127.0.0.1:9",
      },
      "POST /plans": {
        key: "fuzz-plan",
        name: "Fuzzed",
        description: "d",
        currency: "EUR",
        products: [product],
        productGroups: [{ displayName: "Bundle", products: [product], baseAmount: 3 }],
      },
      "POST /plans/{planId}/versions": { products: [product] },
      "POST /plans/{planId}/migrations": {
        fromVersions: [1],
        toVersion: 2,
        effective: { at: "2024-02-01T00:00:00Z" },
        dropOverrides: true,
      },
      "POST /plans/{planId}/simulate": {
        products: [product],
        from: "2024-01-01T00:00:00Z",
        to: "2024-02-01T00:00:00Z",
        sample: 1,
      },
      "PATCH /tax-rates/{taxRateId}": { name: "Renamed" },
      "POST /webhook-endpoints": {
        url: "https://hooks.example.com/fuzz",
        eventTypes: ["invoice.created"],
        description: "fuzzed",
      },
      "PATCH /webhook-endpoints/{endpointId}": {
        url: "https://hooks.example.com/other",
        eventTypes: [],
        description: "d",
        status: "ENABLED",
      },
    };

    const document = (await server.rest("GET", "/openapi.json")).body;
    components = document.components.schemas;
    type ProcedureDef = { _def: { meta?: { openapi?: { method: string; path: string } }; inputs: ZodType[] } };
    const router: AnyRouter = appRouter;
    const procedures = Object.values(router._def.procedures as Record<string, ProcedureDef>);
    operations = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, byMethod]) =>
      Object.entries(byMethod).flatMap(([method, operation]) => {
        if (!isJsonOperation(operation) || !groupsOfTags(operation.tags).includes(group)) return [];
        const procedure = procedures.find(
          ({ _def: { meta } }) => meta?.openapi?.path === path && meta.openapi.method.toLowerCase() === method,
        );
        if (!procedure) throw new Error(`no procedure serves ${method} ${path}`);
        return {
          method: method.toUpperCase(),
          path,
          parameters: operation.parameters ?? [],
          bodySchema: operation.requestBody?.content?.["application/json"]?.schema,
          statuses: Object.keys(operation.responses),
          input: procedure._def.inputs[0]!,
          tags: operation.tags ?? [],
        };
      }),
    );
  });

  const INVALID_JSON_TEXTS = [
    "{",
    '{"name":',
    "[1,]",
    "nul",
    '"unterminated',
    "{'name':1}",
    '{"name": NaN}',
    "{} {}",
    '{"a":1}trailing',
    "\u0000",
    "\ufeff{}",
  ];
  const CONTENT_TYPES = [
    "application/json; charset=utf-8",
    "APPLICATION/JSON",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data",
    undefined,
  ];

  /**
   * Node answers a request line and headers above 16 KiB itself (431, no body), before any code of ours runs:
   * parameters are cut to stay well below that.
   */
  const MAX_PARAMETER_CHARS = 300;
  const MAX_QUERY_CHARS = 10_000;

  /** A string parameter value: a real one, a poisoned one (encoded), or raw bad percent-encoding. */
  function parameterValue(parameter: Parameter): fc.Arbitrary<string> {
    const poisoned = poisonValue(parameter.schema).map((value) =>
      looseEncode((typeof value === "string" ? value : toJsonText(value)).slice(0, MAX_PARAMETER_CHARS)),
    );
    return fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom(...(seeds[parameter.name] ?? ["x"])).map(looseEncode) },
      { weight: 5, arbitrary: poisoned },
      { weight: 1, arbitrary: fc.constantFrom("%", "%zz", "%E0%A4%A", "%C0%AF", "%FF", "%2F", "%00", "a%20b", "+") },
    );
  }

  function queryArbitrary(operation: Operation): fc.Arbitrary<string> {
    const byParameter = operation.parameters
      .filter((parameter) => parameter.in === "query")
      .map((parameter) =>
        fc.oneof(
          { weight: 1, arbitrary: fc.constant([] as string[]) },
          { weight: 3, arbitrary: parameterValue(parameter).map((value) => [`${parameter.name}=${value}`]) },
          // Repeated: a second value of the same name.
          {
            weight: 1,
            arbitrary: fc
              .array(parameterValue(parameter), { minLength: 2, maxLength: 3 })
              .map((values) => values.map((value) => `${parameter.name}=${value}`)),
          },
          // Operator-like and array-like keys, which a qs-style parser would turn into objects.
          {
            weight: 1,
            arbitrary: fc
              .constantFrom("[$gt]=", "[$ne]=x", "[]=1", "[0]=1", ".$where=1")
              .map((suffix) => [`${parameter.name}${suffix}`]),
          },
        ),
      );
    const stray = fc.constantFrom(
      [],
      [],
      ["__proto__=yes"],
      ["constructor=yes"],
      ["__proto__[polluted]=yes"],
      ["constructor[prototype][polluted]=yes"],
      ["unknown=1"],
      ["=", "&&"],
    );
    return fc.tuple(stray, ...byParameter).map((parts) => parts.flat().join("&").slice(0, MAX_QUERY_CHARS));
  }

  /** Operations whose body has only optional fields need no entry in `baseBodies`: `{}` is valid. */
  const baseBodyOf = (operation: Operation) => baseBodies[`${operation.method} ${operation.path}`] ?? {};

  function bodyArbitrary(operation: Operation): fc.Arbitrary<unknown> {
    const base = baseBodyOf(operation);
    const positions = fieldPositions(operation.bodySchema ?? {}, components);
    const objectPositions = [
      [] as FieldPath,
      ...positions.filter(({ schema }) => schema.properties).map(({ path }) => path),
    ];
    const fieldPositionsOnly = positions.filter(({ path }) => path.length > 0);
    return fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .constantFrom(...positions)
          .chain(({ path, schema }) => poisonValue(schema).map((value) => withValueAt(base, path, value))),
      },
      {
        weight: fieldPositionsOnly.length > 0 ? 2 : 0,
        arbitrary: fc
          .constantFrom(...(fieldPositionsOnly.length > 0 ? fieldPositionsOnly : positions))
          .map(({ path }) => withValueAt(base, path, undefined)),
      },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.constantFrom(...objectPositions), fc.constantFrom(...STRAY_KEYS), poisonValue())
          .map(([path, key, value]) => {
            const container = structuredClone(path.reduce<any>((node, key) => node?.[key], base) ?? {});
            setOwn(container, key, value);
            return withValueAt(base, path, container);
          }),
      },
      { weight: 1, arbitrary: fc.constant(base) },
    );
  }

  function requestArbitrary(operation: Operation): fc.Arbitrary<FuzzRequest> {
    const pathParams = fc.record(
      Object.fromEntries(
        operation.parameters
          .filter((parameter) => parameter.in === "path")
          .map((parameter) => [parameter.name, parameterValue(parameter)]),
      ),
    ) as fc.Arbitrary<Record<string, string>>;
    const takesBody = ["POST", "PATCH", "PUT"].includes(operation.method);
    const body: fc.Arbitrary<string | undefined> = !takesBody
      ? fc.constant(undefined)
      : operation.bodySchema
        ? fc.oneof(
            { weight: 12, arbitrary: bodyArbitrary(operation).map(toJsonText) },
            { weight: 1, arbitrary: fc.constantFrom(...INVALID_JSON_TEXTS, "") },
          )
        : fc.oneof(fc.constant(""), poisonValue().map(toJsonText));
    const contentType = takesBody
      ? fc.oneof(
          { weight: 12, arbitrary: fc.constant("application/json") },
          { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
        )
      : fc.constant(undefined);
    return (
      fc
        .record({
          pathParams,
          query: operation.method === "GET" ? queryArbitrary(operation) : fc.constant(""),
          body,
          contentType,
        })
        // Counterexamples print as the request, cut short: some bodies are megabytes long.
        .map((request) => Object.assign(request, { [fc.toStringMethod]: () => describeRequest(operation, request) }))
    );
  }

  const urlOf = (operation: Operation, request: FuzzRequest) =>
    operation.path.replace(/\{(\w+)\}/g, (_, name: string) => request.pathParams[name]!) +
    (request.query ? `?${request.query}` : "");

  /** The percent-decoded value, or undefined when it is not valid percent-encoding. */
  function decoded(value: string) {
    try {
      return decodeURIComponent(value);
    } catch {
      return undefined;
    }
  }

  /**
   * What the request must get, when it can be told in advance: 413, 415 or 400 for a body refused by size, media type,
   * JSON syntax or the procedure's input schema. `undefined` when the body is acceptable (or there is none).
   */
  function refusal(operation: Operation, request: FuzzRequest): { status: number; code: string } | undefined {
    if (request.body === undefined) return undefined;
    // Dot segments or undecodable paths route elsewhere or fail before the body counts: nothing to predict.
    if (leavesPath(operation, request)) return undefined;
    if (Object.values(request.pathParams).some((value) => decoded(value) === undefined)) return undefined;
    if (Buffer.byteLength(request.body) > MAX_BODY_BYTES) return { status: 413, code: "PAYLOAD_TOO_LARGE" };
    if (request.body === "" && request.contentType === undefined)
      return acceptsInput(operation, {}, request) ? undefined : { status: 400, code: "BAD_REQUEST" };
    if (request.contentType?.split(";")[0]?.trim().toLowerCase() !== "application/json")
      return { status: 415, code: "UNSUPPORTED_MEDIA_TYPE" };
    let parsed: unknown = {};
    try {
      if (request.body !== "") parsed = JSON.parse(request.body);
    } catch {
      return { status: 400, code: "BAD_REQUEST" };
    }
    return acceptsInput(operation, parsed, request) ? undefined : { status: 400, code: "BAD_REQUEST" };
  }

  /**
   * Whether the request reaches another path than the operation's: dot segments, or an empty parameter (`/contracts/`
   * is `/contracts`, where the method may be one the path does not serve: 405).
   */
  function leavesPath(operation: Operation, request: FuzzRequest) {
    const path = urlOf(operation, request).split("?")[0];
    return (
      new URL(path!, "http://localhost").pathname !== path ||
      Object.values(request.pathParams).some((value) => value === "")
    );
  }

  /**
   * The input as trpc-to-openapi assembles it: the body's own keys, then the decoded path parameters. A body is an
   * object, and names no path parameter.
   */
  function acceptsInput(operation: Operation, body: unknown, request: FuzzRequest) {
    if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
    // A path parameter is no field of the body (refused, as an unknown field is).
    if (Object.keys(request.pathParams).some((name) => Object.hasOwn(body, name))) return false;
    const pathInput = Object.fromEntries(
      Object.entries(request.pathParams).map(([name, value]) => [name, decoded(value) ?? value]),
    );
    return operation.input.safeParse({ ...(body as object), ...pathInput }).success;
  }

  /** Whether the operation's base body, with the first seed of each path parameter, is an input the server accepts. */
  function hasValidBaseBody(operation: Operation) {
    const pathParams = Object.fromEntries(
      operation.parameters
        .filter((parameter) => parameter.in === "path")
        .map(({ name }) => [name, seeds[name]?.[0] ?? ""]),
    );
    return acceptsInput(operation, baseBodyOf(operation), { pathParams, query: "", body: "", contentType: undefined });
  }

  /**
   * Whether the request may store something if it succeeds: an acceptable body, or a DELETE/POST naming a real
   * resource.
   */
  /**
   * Whether some request to the operation cannot write: one with a body or a path id to get wrong. An operation with
   * neither (DELETE /payment-providers/stripe) has no such request: every request to it may write.
   */
  const refusable = (operation: Operation) => operation.bodySchema !== undefined || operation.path.includes("{");

  function mayWrite(operation: Operation, request: FuzzRequest) {
    if (operation.method === "GET") return false;
    if (request.body !== undefined && operation.bodySchema) return refusal(operation, request) === undefined;
    return Object.entries(request.pathParams).every(([name, value]) => seeds[name]?.map(looseEncode).includes(value));
  }

  async function send(operation: Operation, request: FuzzRequest) {
    const headers: Record<string, string> = {
      authorization: `Bearer ${operation.path.startsWith("/admin") ? ADMIN_TOKEN : token}`,
    };
    if (request.contentType) headers["content-type"] = request.contentType;
    // A string body without a content type would get text/plain from fetch: send bytes to send no header at all.
    const body =
      request.body === undefined ? undefined : request.contentType ? request.body : Buffer.from(request.body);
    const response = await fetch(server.url + urlOf(operation, request), { method: operation.method, headers, body });
    const text = await response.text();
    return { status: response.status, text };
  }

  function describeRequest(operation: Operation, request: FuzzRequest) {
    const body =
      request.body === undefined
        ? ""
        : ` ${request.contentType ?? "(no content-type)"} ` +
          `${request.body.slice(0, 300)}${request.body.length > 300 ? "…" : ""}`;
    return `${operation.method} ${urlOf(operation, request).slice(0, 300)}${body}`;
  }

  function checkResponse(operation: Operation, request: FuzzRequest, response: { status: number; text: string }) {
    const what = `${describeRequest(operation, request)} → ${response.status} ${response.text.slice(0, 300)}`;
    expect(response.status, what).toBeLessThan(500);
    const statuses = leavesPath(operation, request) ? [...operation.statuses, "405"] : operation.statuses;
    expect(statuses, `${what}: a status the document lists`).toContain(String(response.status));
    const expected = refusal(operation, request);
    if (expected) expect({ status: response.status, code: JSON.parse(response.text).code }, what).toEqual(expected);
    if (response.status < 400) return;
    const body = JSON.parse(response.text);
    expect(Object.keys(body).sort(), what).toEqual(body.issues ? ["code", "issues", "message"] : ["code", "message"]);
    expect(typeof body.message, what).toBe("string");
    expect(HTTP_STATUS[body.code as keyof typeof HTTP_STATUS], what).toBe(response.status);
    if (body.issues)
      for (const issue of body.issues) expect(Object.keys(issue).sort(), what).toEqual(["message", "path"]);
  }

  if (deepNesting)
    describe("deep nesting", () => {
      /** As text: JSON.stringify itself would overflow the stack on such values. */
      const customerNested = (depth: number) =>
        `{"name":"Deep","customFields":[{"serviceCustomFieldName":"f","value":` +
        `${"[".repeat(depth)}${"]".repeat(depth)}}]}`;

      it.each([100, 100_000])("refuses a REST body nested %i deep with 400", async (depth) => {
        expectError(
          await server.rest("POST", "/customers", { token, body: customerNested(depth) }),
          400,
          "BAD_REQUEST",
        );
      });

      // The depth check itself must not recurse without bound: it once hit the stack limit, answered as a bare message.
      it("refuses a tRPC custom field value nested 100,000 deep, naming the field", async () => {
        const response = await fetch(`${server.url}/trpc/customers.create`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: customerNested(100_000),
        });
        expect(response.status).toBe(400);
        const { data } = (await response.json()).error;
        expect(data).toMatchObject({
          code: "BAD_REQUEST",
          issues: [{ path: "customFields.0.value", message: "nests deeper than 20 levels" }],
        });
      });

      // An Idempotency-Key makes the raw input be fingerprinted, which walks it before any schema does.
      it("refuses a keyed tRPC mutation nested 100,000 deep with BAD_REQUEST", async () => {
        const response = await fetch(`${server.url}/trpc/customers.create`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            "idempotency-key": "deep-nesting",
          },
          body: customerNested(100_000),
        });
        expect(response.status).toBe(400);
        expect((await response.json()).error.data.code).toBe("BAD_REQUEST");
      });
    });

  describe(`bad input at scale, on the operations tagged ${BAD_INPUT_GROUPS[group]!.join(", ")}`, () => {
    it("covers every documented operation", () => {
      expect(operations.length).toBeGreaterThan(0);
      for (const operation of operations.filter(({ bodySchema }) => bodySchema)) {
        expect(hasValidBaseBody(operation), `the base body of ${operation.method} ${operation.path} is valid`).toBe(
          true,
        );
      }
    });

    it(`answers ${REFUSED_RUNS} refused and ${WRITE_RUNS} possibly accepted requests per operation without a 5xx, in ` +
      `the documented error body, storing nothing when refusing`, async () => {
      const guard = dataGuard();
      let sent = 0;
      let acceptedWrites = 0;
      const sendAndCheck = async (operation: Operation, request: FuzzRequest) => {
        const response = await send(operation, request);
        sent += 1;
        checkResponse(operation, request, response);
        return response;
      };
      for (const operation of operations) {
        // Without a valid base body, hardly any generated request could be accepted: the filter below would search on
        // and on. The test above names the operation; here it only must not hang.
        if (operation.bodySchema && !hasValidBaseBody(operation))
          throw new Error(`no valid base body for ${operation.method} ${operation.path}`);
        const requests = requestArbitrary(operation);
        await guard.reset();
        // Requests that cannot write: the stored data is compared once, after all of them.
        if (refusable(operation))
          await fc.assert(
            fc.asyncProperty(
              requests.filter((request) => !mayWrite(operation, request)),
              async (request) => {
                const response = await sendAndCheck(operation, request);
                // A code is any text, so a fuzzed value may name a rate an accepted POST /tax-rates created under it.
                // So may a coupon's code name one an accepted POST /coupons created.
                const namesCreated = operation.path.includes("{taxRateId}") || operation.path.includes("{code}");
                if (response.status < 300 && namesCreated) await guard.reset();
                else guard.refused(describeRequest(operation, request));
              },
            ),
            { numRuns: REFUSED_RUNS },
          );
        await guard.expectUnchanged();
        if (operation.method === "GET") continue;
        // Requests that may be accepted: a new snapshot after each accepted one, a comparison before the next.
        await fc.assert(
          fc.asyncProperty(
            requests.filter((request) => mayWrite(operation, request)),
            async (request) => {
              await guard.expectUnchanged();
              const response = await sendAndCheck(operation, request);
              if (response.status < 300) {
                // An accepted void is summarized into its day's rollups by the worker: its pass, ended, is the call's.
                if (operation.path === "/events/{eventId}/void") await server.service.upkeep.tick();
                if (guard.sawWrites()) acceptedWrites += 1;
                await guard.reset();
              } else guard.refused(describeRequest(operation, request));
            },
          ),
          { numRuns: WRITE_RUNS },
        );
        await guard.expectUnchanged();
      }
      expect(sent).toBeGreaterThanOrEqual(REFUSED_RUNS * operations.filter(refusable).length);
      // The guard sees what accepted requests store: its silence after refused ones means something.
      expect(acceptedWrites).toBeGreaterThan(operations.length);
      // Bodies and query strings named __proto__ and constructor.prototype: nothing reached this process's prototypes.
      expect(Object.keys(Object.prototype)).toEqual([]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }, 120_000);
  });

  /**
   * The writes since the last accepted request, and the refused requests sent since, which must have changed nothing
   * stored (read from the service's own write commands: test/support/stored-writes.ts).
   */
  function dataGuard() {
    let writes = writesTo(server.service.db.databaseName);
    const refusedSince: string[] = [];
    return {
      async reset() {
        writes = writesTo(server.service.db.databaseName);
        refusedSince.length = 0;
      },
      refused(request: string) {
        refusedSince.push(request);
      },
      sawWrites: () => writes.changedSince().length > 0,
      async expectUnchanged() {
        if (refusedSince.length === 0) return;
        expect(
          writes.changedSince(),
          `refused requests changed stored data; the last ones:\n${refusedSince.slice(-5).join("\n")}`,
        ).toEqual([]);
      },
    };
  }
}
