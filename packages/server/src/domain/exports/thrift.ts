/**
 * The few pieces of Apache Thrift's compact protocol that Parquet's page headers and footer need, written from the
 * protocol's specification: fields as (id delta, type) headers, integers as zigzag varints, binaries and lists with
 * their length first, a struct ended by a stop byte.
 */

/** Compact protocol type ids of the values written here. */
const TYPE = { TRUE: 1, FALSE: 2, I32: 5, I64: 6, BINARY: 8, LIST: 9, STRUCT: 12 } as const;

/** A Thrift value as written: its kind decides its compact type. */
export type ThriftValue =
  | { i32: number }
  | { i64: number }
  | { bool: boolean }
  | { text: string }
  | { list: ThriftValue[]; of: "i32" | "text" | "struct" }
  | ThriftStruct;
/** A struct: its fields by id (1, 2, …), those left undefined not written. */
export type ThriftStruct = { struct: Record<number, ThriftValue | undefined> };

export const i32 = (value: number): ThriftValue => ({ i32: value });
export const i64 = (value: number): ThriftValue => ({ i64: value });
export const text = (value: string): ThriftValue => ({ text: value });
export const struct = (fields: Record<number, ThriftValue | undefined>): ThriftStruct => ({ struct: fields });

/** An unsigned varint: 7 bits a byte, low first, the high bit set on all bytes but the last. */
function varint(out: number[], value: number) {
  let rest = BigInt(value);
  while (rest >= 0x80n) {
    out.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  out.push(Number(rest));
}

/** A signed integer as a zigzag varint (0, -1, 1, -2 … → 0, 1, 2, 3 …). */
function zigzag(out: number[], value: number) {
  const n = BigInt(value);
  varint(out, Number(n >= 0n ? n * 2n : -n * 2n - 1n));
}

const typeOf = (value: ThriftValue): number => {
  if ("i32" in value) return TYPE.I32;
  if ("i64" in value) return TYPE.I64;
  if ("bool" in value) return value.bool ? TYPE.TRUE : TYPE.FALSE;
  if ("text" in value) return TYPE.BINARY;
  if ("list" in value) return TYPE.LIST;
  return TYPE.STRUCT;
};

const ELEMENT_TYPE = { i32: TYPE.I32, text: TYPE.BINARY, struct: TYPE.STRUCT } as const;

function writeValue(out: number[], value: ThriftValue) {
  if ("i32" in value || "i64" in value) zigzag(out, "i32" in value ? value.i32 : value.i64);
  else if ("text" in value) {
    const bytes = Buffer.from(value.text, "utf8");
    varint(out, bytes.length);
    for (const byte of bytes) out.push(byte);
  } else if ("list" in value) {
    const size = value.list.length;
    const element = ELEMENT_TYPE[value.of];
    if (size < 15) out.push((size << 4) | element);
    else {
      out.push(0xf0 | element);
      varint(out, size);
    }
    for (const item of value.list) writeValue(out, item);
  } else if ("struct" in value) writeStruct(out, value);
}

function writeStruct(out: number[], { struct: fields }: ThriftStruct) {
  let last = 0;
  const ids = Object.keys(fields)
    .map(Number)
    .sort((a, b) => a - b);
  for (const id of ids) {
    const value = fields[id];
    if (value === undefined) continue;
    const delta = id - last;
    if (delta > 0 && delta <= 15) out.push((delta << 4) | typeOf(value));
    else {
      out.push(typeOf(value));
      zigzag(out, id);
    }
    // A boolean field's value is its type id: nothing follows the header.
    if (!("bool" in value)) writeValue(out, value);
    last = id;
  }
  out.push(0);
}

/** The struct in the compact protocol. */
export function compactStruct(value: ThriftStruct): Buffer {
  const out: number[] = [];
  writeStruct(out, value);
  return Buffer.from(out);
}
