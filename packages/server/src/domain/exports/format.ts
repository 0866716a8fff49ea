/** One row of an export: its columns' values in order (`null` empty). */
export type ExportValue = string | number | boolean | null;
export type ExportRow = Record<string, ExportValue>;

/** A UTF-8 byte order mark: spreadsheets then read the file as UTF-8 (names with accents stay right). */
export const CSV_BOM = "\uFEFF";

/**
 * A field as RFC 4180 writes it: quoted when it holds a comma, a quote, CR or LF (its quotes doubled), else as is.
 * A text starting with `=`, `+`, `-` or `@` is prefixed with `'` so that a spreadsheet never runs it as a formula;
 * numbers are written as they are (a negative amount stays a number).
 */
export function csvField(value: ExportValue): string {
  if (value === null) return "";
  if (typeof value !== "string") return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** One CSV record of `columns`, ended by CRLF (RFC 4180). */
export const csvLine = (columns: readonly string[], row: ExportRow) =>
  `${columns.map((column) => csvField(row[column] ?? null)).join(",")}\r\n`;

/** The header record: the byte order mark, then the column names. */
export const csvHeader = (columns: readonly string[]) =>
  `${CSV_BOM}${columns.map((column) => csvField(column)).join(",")}\r\n`;

/** One NDJSON line: the row as a JSON object, its columns in order, ended by LF. */
export const ndjsonLine = (columns: readonly string[], row: ExportRow) =>
  `${JSON.stringify(Object.fromEntries(columns.map((column) => [column, row[column] ?? null])))}\n`;
