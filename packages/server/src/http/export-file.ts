import type { ServerResponse } from "node:http";
import type { Export } from "@billing/shared";
import type { OpenAPIObject } from "trpc-to-openapi";
import type { Context } from "../context.js";
import { statusOf, toErrorBody } from "../error-body.js";
import { exportFilesRouter } from "../routers/exports.js";
import { rawGetParamOf, siblingGetOf } from "./raw-routes.js";

const CONTENT_TYPES = {
  csv: "text/csv; charset=utf-8",
  ndjson: "application/x-ndjson; charset=utf-8",
  parquet: "application/vnd.apache.parquet",
} as const;

const PATTERN = /^\/exports\/([^/]+)\/file\/?$/i;

/** The export id of a `GET /exports/{exportId}/file` path, decoded; undefined for any other path. */
export const exportFileRequestOf = (method: string | undefined, path: string): string | undefined =>
  rawGetParamOf(PATTERN, method, path);

/** Adds the route to the OpenAPI document with the tag, security, parameter and errors of `GET /exports/{id}`. */
export function documentExportFileRoute(document: OpenAPIObject) {
  document.paths ??= {};
  const { parameters, tags, security, errors } = siblingGetOf(document, "/exports/{exportId}");
  const summary = "An export's file, streamed";
  document.paths["/exports/{exportId}/file"] = {
    get: structuredClone({
      operationId: "exports-file",
      summary,
      description:
        "The COMPLETED export's file: CSV (RFC 4180, UTF-8 with a byte order mark, a header record, CRLF), NDJSON " +
        "(one JSON object a line) or Apache Parquet (typed columns, money DECIMAL(18, 6)), streamed chunk by chunk. " +
        "409 while the export is PENDING or RUNNING; another account's export is a 404.",
      tags,
      security,
      parameters,
      responses: {
        "200": {
          description: summary,
          content: {
            [CONTENT_TYPES.csv]: { schema: { type: "string" } },
            [CONTENT_TYPES.ndjson]: { schema: { type: "string" } },
            [CONTENT_TYPES.parquet]: { schema: { type: "string", format: "binary" } },
          },
        },
        ...errors,
        "409": notCompleted(errors),
      },
    }),
  };
}

/** The 409 of a file asked for before its export is COMPLETED, in the error body the sibling's responses use. */
function notCompleted(errors: Record<string, unknown>) {
  const { schema } =
    (errors["404"] as { content: Record<string, { schema: unknown }> }).content["application/json"] ?? {};
  const example = { code: "CONFLICT", message: "The export is PENDING: its file is streamed once it is COMPLETED" };
  const description =
    "The export is PENDING or RUNNING: its file is streamed once GET /exports/{exportId} says COMPLETED";
  return { description, content: { "application/json": { schema, example } } };
}

const drained = (res: ServerResponse) => new Promise<void>((resolve) => res.once("drain", resolve));

/** Streams the export's file, or answers with the error body and status of any other route. */
export async function serveExportFile(res: ServerResponse, context: Context, exportId: string) {
  let exp: Export;
  try {
    exp = await exportFilesRouter.createCaller(context).file({ exportId });
  } catch (error) {
    const errorBody = toErrorBody(error);
    if (errorBody.code === "INTERNAL_SERVER_ERROR") context.trace.log.error({ err: error }, "export file failed");
    const payload = JSON.stringify(errorBody);
    res.writeHead(statusOf(errorBody), {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(payload),
    });
    res.end(payload);
    return;
  }
  const format = exp.format;
  res.writeHead(200, {
    "content-type": CONTENT_TYPES[format],
    "content-disposition": `attachment; filename="${exp.kind}-${exp.id}.${format}"`,
    "cache-control": "private, no-store",
    "x-content-type-options": "nosniff",
  });
  try {
    for await (const chunk of context.repositories.exportChunks.inOrder(exp.id)) {
      const body = format === "parquet" ? Buffer.from(chunk.text, "base64") : chunk.text;
      if (!res.write(body)) await drained(res);
    }
    res.end();
  } catch (error) {
    context.trace.log.error({ err: error, exportId }, "export file stream failed");
    res.destroy(error as Error);
  }
}
