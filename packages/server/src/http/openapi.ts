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
    version: "0.1.0",
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
  return document;
}
