import fc from "fast-check";

/**
 * Generators of invalid and boundary input for the property test of every endpoint (test/bad-input.<group>.test.ts),
 * driven by the OpenAPI document: field positions and bounds come from its schemas.
 */

/** JSON text that JSON.stringify cannot write (1e309 parses to Infinity, -0 stays -0, 2^53+1 loses its last digit). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a value that may hold RawJson leaves and own `__proto__` keys. */
export function toJsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (!(item instanceof RawJson)) return item;
    raws.push(item.text);
    return `\u0001RAW${raws.length - 1}\u0001`;
  });
  return (text ?? "null").replace(/"\\u0001RAW(\d+)\\u0001"/g, (_, index: string) => raws[Number(index)]!);
}

/** Defines an own property, even for `__proto__` (plain assignment would change the prototype instead). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Percent-encodes any string, lone surrogates included (as the bytes of CESU-8, which no server may decode). */
export function looseEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...text]
      .map((char) => {
        const code = char.charCodeAt(0);
        if (char.length === 1 && code >= 0xd800 && code <= 0xdfff) {
          const byte = (value: number) => `%${value.toString(16)}`;
          return byte(0xe0 | (code >> 12)) + byte(0x80 | ((code >> 6) & 0x3f)) + byte(0x80 | (code & 0x3f));
        }
        return encodeURIComponent(char);
      })
      .join("")
      .toUpperCase();
  }
}

/** Nesting as JSON text: JSON.stringify itself recurses, and would overflow the stack at these depths. */
const nested = (depth: number, kind: "array" | "object") =>
  new RawJson(
    kind === "array"
      ? `${"[".repeat(depth)}"deep"${"]".repeat(depth)}`
      : `${'{"a":'.repeat(depth)}"deep"${"}".repeat(depth)}`,
  );

/** Objects whose keys are operators, or that try to reach Object.prototype once parsed and merged. */
const operatorObjects = (): unknown[] => [
  { $gt: "" },
  { $ne: null },
  { $in: [] },
  { $regex: ".*" },
  { $where: "sleep(1000)" },
  { $exists: true },
  { $expr: { $eq: [1, 1] } },
  { "a.b": 1 },
  JSON.parse('{"__proto__": {"polluted": "yes"}}'),
  JSON.parse('{"constructor": {"prototype": {"polluted": "yes"}}}'),
  JSON.parse('{"prototype": {"polluted": "yes"}}'),
];

const EDGE_NUMBERS: unknown[] = [
  0,
  -1,
  0.1,
  1e-7,
  5e-324,
  1.0000001,
  999_999_999.999999,
  1_000_000_000,
  1_000_000_000.000001,
  1e21,
  1e308,
  -1e308,
  2 ** 53 + 2,
  Number.MAX_SAFE_INTEGER,
  new RawJson("-0"),
  new RawJson("1e309"),
  new RawJson("-1e309"),
  new RawJson("9007199254740993"),
  new RawJson("1e-400"),
  new RawJson("0.0000001"),
];

const EDGE_STRINGS = [
  "",
  " ",
  "   padded   ",
  "\u0000",
  "nul\u0000inside",
  "\ud800",
  "lone \udfff low",
  "\ud83d\ude00 emoji",
  "\u202e right-to-left",
  "\ufeff",
  "ｆｕｌｌｗｉｄｔｈ",
  "NaN",
  "Infinity",
  "-Infinity",
  "-0",
  "1e309",
  "0x10",
  "9007199254740993",
  "null",
  "true",
  "[]",
  "{}",
  '{"$gt":""}',
  "$gt",
  "__proto__",
  "constructor",
  "../../etc/passwd",
  "%00",
  "%zz",
  "<script>alert(1)</script>",
  "' OR '1'='1",
  "2024-02-30T00:00:00Z",
  "2023-02-29T00:00:00Z",
  "2024-01-01T00:00:00+25:00",
  "2024-01-01T24:00:00Z",
  "0000-01-01T00:00:00Z",
  "9999-12-31T23:59:59.999999999Z",
  "2024-01-01",
  "000000000000000000000000",
  "ffffffffffffffffffffffff",
];

/** Values for a position whose schema is `schema`: its bounds and one past them, then anything at all. */
function boundaryValues(schema: JsonSchema | undefined): unknown[] {
  if (!schema) return [];
  const values: unknown[] = [];
  if (schema.maxLength !== undefined)
    values.push("x".repeat(schema.maxLength), "x".repeat(schema.maxLength + 1), " ".repeat(schema.maxLength + 1));
  if (schema.minLength !== undefined && schema.minLength > 0) values.push("x".repeat(schema.minLength - 1));
  for (const bound of [schema.minimum, schema.maximum, schema.exclusiveMinimum, schema.exclusiveMaximum]) {
    if (typeof bound === "number")
      values.push(bound, bound + 1, bound - 1, bound + 0.5, bound + 1e-6, bound - 1e-6, bound + 1e-7);
  }
  if (schema.maxItems !== undefined) values.push(Array.from({ length: schema.maxItems + 1 }, () => "x"));
  if (schema.enum) values.push(...schema.enum.map((item) => (typeof item === "string" ? item.toLowerCase() : item)));
  return values;
}

/** Any value meant to be wrong somewhere, biased towards the known troublemakers. */
export function poisonValue(schema?: JsonSchema): fc.Arbitrary<unknown> {
  const boundary = boundaryValues(schema);
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...EDGE_STRINGS) },
    { weight: 3, arbitrary: fc.constantFrom(...EDGE_NUMBERS) },
    { weight: 3, arbitrary: fc.constantFrom(...operatorObjects()) },
    { weight: boundary.length > 0 ? 4 : 0, arbitrary: fc.constantFrom(...(boundary.length > 0 ? boundary : [null])) },
    { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [[[]]], [{}], [null]) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    { weight: 1, arbitrary: fc.double() },
    { weight: 1, arbitrary: fc.integer({ min: -(2 ** 31), max: 2 ** 31 }) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(21, 200, 5_000, 100_000), fc.constantFrom<"array" | "object">("array", "object"))
        .map(([depth, kind]) => nested(depth, kind)),
    },
    // The last one is above the 5 MiB body limit: 413.
    {
      weight: 1,
      arbitrary: fc.constantFrom(10_000, 200_000, 10_000, 200_000, 5_500_000).map((length) => "y".repeat(length)),
    },
    { weight: 1, arbitrary: fc.constant(Array.from({ length: 5_000 }, (_, index) => `item-${index}`)) },
  );
}

/** Keys that do not belong in any body: response-only fields, operators, prototype keys. */
export const STRAY_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "$where",
  "$set",
  "a.b",
  "",
  "\u0000",
  "id",
  "_id",
  "accountId",
  "createdAt",
  "deletedAt",
];

export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  maxItems?: number;
}

export type FieldPath = (string | number)[];

/** Every position of a body schema (object properties, first array items), with the schema found there. */
export function fieldPositions(
  schema: JsonSchema,
  components: Record<string, JsonSchema>,
  path: FieldPath = [],
  depth = 0,
): { path: FieldPath; schema: JsonSchema }[] {
  const resolved = schema.$ref ? (components[schema.$ref.replace("#/components/schemas/", "")] ?? {}) : schema;
  const here = [{ path, schema: resolved }];
  if (depth > 6) return here;
  const children = [
    ...Object.entries(resolved.properties ?? {}).flatMap(([key, child]) =>
      fieldPositions(child, components, [...path, key], depth + 1),
    ),
    ...(resolved.items ? fieldPositions(resolved.items, components, [...path, 0], depth + 1) : []),
    ...[...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])].flatMap((option) =>
      fieldPositions(option, components, path, depth + 1).slice(1),
    ),
  ];
  return [...here, ...children];
}

/**
 * A copy of `base` with `value` at `path` (undefined: the field removed), creating the containers on the way,
 * so that positions of optional fields the base leaves out are reached too.
 */
export function withValueAt(base: unknown, path: FieldPath, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  const container: Record<string, unknown> =
    typeof head === "number"
      ? ((Array.isArray(base) ? [...base] : []) as unknown as Record<string, unknown>)
      : isPlainObject(base)
        ? { ...base }
        : {};
  const next = withValueAt(container[head as string], rest, value);
  if (next === undefined && rest.length === 0) delete container[head as string];
  else setOwn(container, String(head), next);
  return container;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof RawJson);
