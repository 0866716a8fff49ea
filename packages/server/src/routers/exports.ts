import { exportCreate, exportIdParam, exportResource } from "@billing/shared";
import { z } from "zod";
import { conflict, notFound } from "../domain/errors.js";
import { accountProcedure } from "../procedures.js";
import { scopeOf } from "../services/call-scope.js";
import { createExport, readExport } from "../services/exports/exports.js";
import { router } from "../trpc.js";

const tags = ["exports"];
const exportResponse = z.object({ export: exportResource });

export const exportsRouter = router({
  create: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/exports",
        tags,
        summary: "Export invoices, lines, payments, credit notes, credit ledger, events or revenue of a window",
        description:
          "202 with the export PENDING: the export worker writes its file in batches in the background (whether " +
          "or not the billing scheduler runs), then it is COMPLETED (`export.completed`) and `GET " +
          "/exports/{exportId}/file` streams it. `kind`: invoices and invoice_lines by their invoice's issue " +
          "(finalization) in [from, to), payments by recording, credit_notes by creation, ledger (credit ledger " +
          "entries) by writing, events by their timestamp, revenue (recognition schedule lines) by billing. " +
          "`format`: csv (RFC 4180, UTF-8 with a byte order mark, CRLF) or ndjson, amounts the API's decimals; or " +
          "parquet, typed columns with money as DECIMAL(18, 6) and instants as UTC timestamps. " +
          "Kept EXPORT_RETENTION_DAYS.",
      },
      successStatus: 202,
      finance: true,
    })
    .input(exportCreate)
    .output(exportResponse)
    .mutation(async ({ ctx, input }) => ({ export: await createExport(scopeOf(ctx), input) })),

  get: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/exports/{exportId}",
        tags,
        summary: "An export: its status and the rows written",
        description: "Another account's export is a 404.",
      },
    })
    .input(exportIdParam)
    .output(exportResponse)
    .query(async ({ ctx, input }) => {
      const found = await readExport(scopeOf(ctx), input.exportId);
      if (!found) throw notFound("Export");
      return { export: found };
    }),
});

/**
 * What `GET /exports/{exportId}/file` reads before it streams (http/export-file.ts): a raw HTTP route, run as one call
 * of this procedure, so it is authenticated, limited and scoped to its account like any other. Not in appRouter.
 */
export const exportFilesRouter = router({
  file: accountProcedure.input(exportIdParam).query(async ({ ctx, input }) => {
    const found = await readExport(scopeOf(ctx), input.exportId);
    if (!found) throw notFound("Export");
    if (found.status !== "COMPLETED")
      throw conflict(`The export is ${found.status}: its file is streamed once it is COMPLETED`);
    return found;
  }),
});
