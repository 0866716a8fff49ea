import { API_VERSION } from "@billing/shared";
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import type { AppRouter } from "../routers/index.js";
import { documentErrorResponses } from "./error-responses.js";
import { successStatusByPath } from "./success-status.js";

/**
 * The OpenAPI document, generated from the procedures. trpc-to-openapi documents every success as 200,
 * so creations are moved to the 201 they really return; error responses are the service's own (error-responses.ts).
 */
export function buildOpenApiDocument(router: AppRouter, baseUrl: string): OpenAPIObject {
  const document = generateOpenApiDocument(router, {
    title: "Usage-based billing API",
    description: "Customers, contracts, usage, credits and invoices. Every billing call needs `Authorization: Bearer <token>`.",
    version: API_VERSION,
    baseUrl,
    securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } },
  });
  for (const { method, path, status } of successStatusByPath(router)) {
    const openApiPath = path.replace(/\{(\w+)\}/g, "{$1}");
    const operation = document.paths?.[openApiPath]?.[method];
    if (operation?.responses?.["200"] && status !== 200) {
      operation.responses[String(status)] = operation.responses["200"];
      delete operation.responses["200"];
    }
  }
  documentErrorResponses(document);
  documentOptionalBodies(document);
  return document;
}

interface BodySchema {
  $ref?: string;
  required?: string[];
}

/**
 * trpc-to-openapi marks every request body required. The server reads a missing body as `{}`, so a body is
 * required exactly when `{}` is refused, i.e. when its schema requires a property; elsewhere it is optional.
 */
function documentOptionalBodies(document: OpenAPIObject) {
  const components = (document.components?.schemas ?? {}) as Record<string, BodySchema>;
  const resolve = (schema: BodySchema): BodySchema =>
    schema.$ref ? resolve(components[schema.$ref.replace("#/components/schemas/", "")] ?? {}) : schema;
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(pathItem as Record<string, { requestBody?: { required?: boolean; content?: any } }>)) {
      const schema = operation.requestBody?.content?.["application/json"]?.schema as BodySchema | undefined;
      if (schema) operation.requestBody!.required = (resolve(schema).required?.length ?? 0) > 0;
    }
  }
}
