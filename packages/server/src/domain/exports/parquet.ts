import type { ExportRow, ExportValue } from "./format.js";
import { compactStruct, i32, i64, struct, type ThriftValue, text } from "./thrift.js";

/**
 * A minimal Apache Parquet writer, from the format's specification: the file is `PAR1`, row groups, the footer
 * (FileMetaData in Thrift's compact protocol), its length and `PAR1`. Each export batch is one row group holding one
 * uncompressed data page (v1) per column, values PLAIN-encoded; every column is OPTIONAL, so each page starts with
 * its definition levels (bit width 1, the RLE/bit-packing hybrid, bit-packed). Typed columns: text as UTF8 byte
 * arrays, integers INT64, numbers DOUBLE, booleans BOOLEAN, instants INT64 TIMESTAMP_MILLIS (UTC), money INT64
 * DECIMAL(18, 6).
 */
export type ColumnType = "string" | "integer" | "number" | "boolean" | "timestamp" | "money";
export interface Column {
  name: string;
  type: ColumnType;
}

/** Money's scale in a Parquet file: the service's micro-units, so every amount the API shows is held exactly. */
export const MONEY_SCALE = 6;
const MONEY_PRECISION = 18;

export const PARQUET_MAGIC = Buffer.from("PAR1", "ascii");

/** What the footer needs of a row group written earlier: its rows and where each column's page is. */
export interface RowGroupMeta {
  rows: number;
  columns: { offset: number; size: number; values: number }[];
}

// Parquet's enums (parquet.thrift): physical types, converted types, encodings.
const PHYSICAL = { BOOLEAN: 0, INT64: 2, DOUBLE: 5, BYTE_ARRAY: 6 } as const;
const PHYSICAL_OF: Record<ColumnType, number> = {
  string: PHYSICAL.BYTE_ARRAY,
  integer: PHYSICAL.INT64,
  number: PHYSICAL.DOUBLE,
  boolean: PHYSICAL.BOOLEAN,
  timestamp: PHYSICAL.INT64,
  money: PHYSICAL.INT64,
};
const CONVERTED = { UTF8: 0, DECIMAL: 5, TIMESTAMP_MILLIS: 9 } as const;
const PLAIN = 0;
const RLE = 3;
const OPTIONAL = 1;

/** A value as its column stores it, or null (an empty cell, or a value the type cannot hold). */
function typed(type: ColumnType, value: ExportValue): string | number | boolean | bigint | null {
  if (value === null) return null;
  switch (type) {
    case "string":
      return String(value);
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "timestamp": {
      const at = typeof value === "string" ? Date.parse(value) : Number.NaN;
      return Number.isNaN(at) ? null : BigInt(at);
    }
    case "money": {
      const amount = Number(value);
      return Number.isFinite(amount) ? BigInt(Math.round(amount * 10 ** MONEY_SCALE)) : null;
    }
    case "integer":
      return Number.isSafeInteger(Number(value)) ? BigInt(Number(value)) : null;
    case "number":
      return Number.isFinite(Number(value)) ? Number(value) : null;
  }
}

/** Booleans (or levels of bit width 1) packed 8 a byte, the first in the lowest bit. */
function bitPacked(bits: boolean[]): Buffer {
  const bytes = Buffer.alloc(Math.ceil(bits.length / 8));
  bits.forEach((bit, index) => {
    if (bit) bytes.writeUInt8(bytes.readUInt8(index >> 3) | (1 << (index & 7)), index >> 3);
  });
  return bytes;
}

/** The definition levels of an OPTIONAL column (1 present, 0 null): length-prefixed, one bit-packed run. */
function definitionLevels(present: boolean[]): Buffer {
  const groups = Math.ceil(present.length / 8);
  const header: number[] = [];
  for (let rest = (groups << 1) | 1; ; rest >>>= 7) {
    if (rest < 0x80) {
      header.push(rest);
      break;
    }
    header.push((rest & 0x7f) | 0x80);
  }
  const run = Buffer.concat([Buffer.from(header), bitPacked(present)]);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(run.length);
  return Buffer.concat([length, run]);
}

/** The present values PLAIN-encoded. */
function plainValues(type: ColumnType, values: (string | number | boolean | bigint)[]): Buffer {
  if (type === "boolean") return bitPacked(values as boolean[]);
  if (type === "number") {
    const out = Buffer.alloc(8 * values.length);
    values.forEach((value, index) => {
      out.writeDoubleLE(value as number, 8 * index);
    });
    return out;
  }
  if (type === "string")
    return Buffer.concat(
      values.flatMap((value) => {
        const bytes = Buffer.from(value as string, "utf8");
        const length = Buffer.alloc(4);
        length.writeUInt32LE(bytes.length);
        return [length, bytes];
      }),
    );
  const out = Buffer.alloc(8 * values.length);
  values.forEach((value, index) => {
    out.writeBigInt64LE(value as bigint, 8 * index);
  });
  return out;
}

/** One column's data page: its header (Thrift) and its body (levels, values). */
function dataPage(column: Column, rows: readonly ExportRow[]): Buffer {
  const cells = rows.map((row) => typed(column.type, row[column.name] ?? null));
  const present = cells.filter((cell) => cell !== null);
  const body = Buffer.concat([definitionLevels(cells.map((cell) => cell !== null)), plainValues(column.type, present)]);
  const header = compactStruct(
    struct({
      1: i32(0), // DATA_PAGE
      2: i32(body.length),
      3: i32(body.length),
      5: struct({ 1: i32(rows.length), 2: i32(PLAIN), 3: i32(RLE), 4: i32(RLE) }),
    }),
  );
  return Buffer.concat([header, body]);
}

/** The rows as one row group starting at byte `offset` of the file: its bytes and what the footer needs of it. */
export function rowGroup(
  columns: readonly Column[],
  rows: readonly ExportRow[],
  offset: number,
): { bytes: Buffer; meta: RowGroupMeta } {
  const pages = columns.map((column) => dataPage(column, rows));
  let at = offset;
  const metas = pages.map((page) => {
    const meta = { offset: at, size: page.length, values: rows.length };
    at += page.length;
    return meta;
  });
  return { bytes: Buffer.concat(pages), meta: { rows: rows.length, columns: metas } };
}

function schemaElement({ name, type }: Column): ThriftValue {
  const logical =
    type === "string"
      ? { 6: i32(CONVERTED.UTF8) }
      : type === "timestamp"
        ? { 6: i32(CONVERTED.TIMESTAMP_MILLIS) }
        : type === "money"
          ? { 6: i32(CONVERTED.DECIMAL), 7: i32(MONEY_SCALE), 8: i32(MONEY_PRECISION) }
          : {};
  return struct({ 1: i32(PHYSICAL_OF[type]), 3: i32(OPTIONAL), 4: text(name), ...logical });
}

/** The file's end: FileMetaData (schema, row groups), its length (4 bytes, little-endian) and `PAR1`. */
export function footer(columns: readonly Column[], groups: readonly RowGroupMeta[]): Buffer {
  const rowGroups = groups.map((group) =>
    struct({
      1: {
        of: "struct",
        list: group.columns.map((chunk, index) => {
          const column = columns[index] ?? { name: "", type: "string" };
          return struct({
            2: i64(chunk.offset),
            3: struct({
              1: i32(PHYSICAL_OF[column.type]),
              2: { of: "i32", list: [i32(PLAIN), i32(RLE)] },
              3: { of: "text", list: [text(column.name)] },
              4: i32(0), // UNCOMPRESSED
              5: i64(chunk.values),
              6: i64(chunk.size),
              7: i64(chunk.size),
              9: i64(chunk.offset),
            }),
          });
        }),
      },
      2: i64(group.columns.reduce((sum, chunk) => sum + chunk.size, 0)),
      3: i64(group.rows),
    }),
  );
  const metadata = compactStruct(
    struct({
      1: i32(1),
      2: {
        of: "struct",
        list: [struct({ 4: text("export"), 5: i32(columns.length) }), ...columns.map(schemaElement)],
      },
      3: i64(groups.reduce((sum, group) => sum + group.rows, 0)),
      4: { of: "struct", list: rowGroups },
      6: text("billing-service export"),
    }),
  );
  const length = Buffer.alloc(4);
  length.writeUInt32LE(metadata.length);
  return Buffer.concat([metadata, length, PARQUET_MAGIC]);
}
