import { API_VERSION } from "@billing/shared";
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import type { AppRouter } from "../routers/index.js";
import { documentCustomerStreamRoute } from "./customer-stream.js";
import { documentDocumentRoutes } from "./documents.js";
import { documentErrorResponses } from "./error-responses.js";
import { documentExportFileRoute } from "./export-file.js";
import { documentRequestExamples } from "./openapi-examples.js";
import { describeDocument } from "./openapi-info.js";
import { successStatusByPath } from "./success-status.js";

/**
 * The OpenAPI document, generated from the procedures. trpc-to-openapi documents every success as 200,
 * so creations are moved to the 201 they really return; error responses are the service's own (error-responses.ts).
 */
export function buildOpenApiDocument(router: AppRouter, baseUrl: string): OpenAPIObject {
  const document = generateOpenApiDocument(router, {
    title: "Usage-based billing API",
    description:
      "Customers, contracts, usage, credits and invoices. Every billing call needs `Authorization: Bearer <token>`.",
    version: API_VERSION,
    baseUrl,
    securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } },
  });
  for (const { method, path, status } of successStatusByPath(router)) {
    const operation = document.paths?.[path]?.[method];
    if (operation?.responses?.["200"] && status !== 200) {
      operation.responses[String(status)] = operation.responses["200"];
      delete operation.responses["200"];
    }
  }
  documentErrorResponses(document);
  documentRequestBodies(document);
  documentRequestExamples(document);
  describeDocument(document);
  documentDocumentRoutes(document);
  documentExportFileRoute(document);
  documentCustomerStreamRoute(document);
  return document;
}

interface BodySchema {
  $ref?: string;
  required?: string[];
  additionalProperties?: unknown;
}
interface DocumentedOperation {
  requestBody?: { required?: boolean; content?: Record<string, { schema?: BodySchema }> };
}

/**
 * Request bodies as the server reads them. trpc-to-openapi marks every body required, and drops
 * `additionalProperties: false` from a body whose schema has a refinement (`POST /contracts`). The server reads a
 * missing body as `{}`, so a body is required exactly when `{}` is refused, i.e. when its schema requires a property;
 * and every body refuses unknown fields (docs/decisions.md, "Errors"), which the document now says of each.
 */
function documentRequestBodies(document: OpenAPIObject) {
  const components = (document.components?.schemas ?? {}) as Record<string, BodySchema>;
  const resolve = (schema: BodySchema): BodySchema =>
    schema.$ref ? resolve(components[schema.$ref.replace("#/components/schemas/", "")] ?? {}) : schema;
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(pathItem as Record<string, DocumentedOperation>)) {
      const requestBody = operation.requestBody;
      const schema = requestBody?.content?.["application/json"]?.schema;
      if (!requestBody || !schema) continue;
      const body = resolve(schema);
      body.additionalProperties ??= false;
      requestBody.required = (body.required?.length ?? 0) > 0;
    }
  }
}
