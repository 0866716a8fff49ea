import { z } from "zod";
import { resourceRef, serviceId, timestamp } from "./common.js";

/**
 * What an export holds: one row per invoice, invoice line, payment, credit note, credit ledger entry, event or
 * revenue schedule line of the window.
 */
export const EXPORT_KINDS = [
  "invoices",
  "invoice_lines",
  "payments",
  "credit_notes",
  "ledger",
  "events",
  "revenue",
] as const;
export const exportKind = z.enum(EXPORT_KINDS).meta({ id: "ExportKind" });
export type ExportKind = z.infer<typeof exportKind>;
export const exportFormat = z.enum(["csv", "ndjson", "parquet"]).meta({ id: "ExportFormat" });
export type ExportFormat = z.infer<typeof exportFormat>;

/** At most this long a window: ten years. */
const MAX_WINDOW_MS = 3_660 * 86_400_000;

export const exportCreate = z
  .strictObject({
    kind: exportKind.meta({
      description:
        "invoices (by issue date), invoice_lines (their invoices' issue date), payments (by recording), " +
        "credit_notes (by creation), ledger (credit ledger entries, by writing), events (by their timestamp), " +
        "revenue (recognition schedule lines, by billing date).",
    }),
    from: timestamp.meta({ description: "Inclusive start of the window." }),
    to: timestamp.meta({ description: "Exclusive end of the window." }),
    format: exportFormat.meta({
      description:
        "csv (RFC 4180, UTF-8 with a byte order mark), ndjson, or parquet (typed columns: money DECIMAL(18, 6), " +
        "instants TIMESTAMP_MILLIS UTC, one row group per batch, uncompressed).",
    }),
  })
  .superRefine(({ from, to }, ctx) => {
    const span = Date.parse(to) - Date.parse(from);
    if (!(span > 0)) ctx.addIssue({ code: "custom", path: ["to"], message: "must be after from" });
    else if (span > MAX_WINDOW_MS)
      ctx.addIssue({ code: "custom", path: ["to"], message: "at most 3660 days after from" });
  });
export type ExportCreate = z.infer<typeof exportCreate>;

export const exportStatus = z.enum(["PENDING", "RUNNING", "COMPLETED"]).meta({ id: "ExportStatus" });

export const exportResource = z
  .object({
    id: serviceId,
    kind: exportKind,
    format: exportFormat,
    from: timestamp,
    to: timestamp,
    status: exportStatus.meta({ description: "PENDING until its first batch, RUNNING, then COMPLETED." }),
    rows: z.number().int().min(0).meta({ description: "Rows written so far (all of them once COMPLETED)." }),
    createdAt: timestamp,
    completedAt: timestamp.optional(),
    expiresAt: timestamp.meta({ description: "When the export and its file are deleted (EXPORT_RETENTION_DAYS)." }),
  })
  .meta({ id: "Export" });
export type Export = z.infer<typeof exportResource>;

export const exportIdParam = z.object({ exportId: resourceRef });
