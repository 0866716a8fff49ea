import { z } from "zod";

/** One UTC day in milliseconds: days are UTC calendar days throughout the service. */
export const DAY_MS = 86_400_000;

/** Every timestamp on the wire: ISO 8601; inputs may carry an offset, outputs are always UTC (`Z`). */
export const timestamp = z.iso.datetime({ offset: true });

/**
 * A lone UTF-16 surrogate (`"\ud800"`, which JSON text may carry) has no UTF-8 form: stored, it would read back as
 * U+FFFD. With the `u` flag a surrogate pair is one code point, so only a lone surrogate is in category Cs.
 */
const LONE_SURROGATE = /\p{Cs}/u;
export const LONE_SURROGATE_MESSAGE = "holds a lone UTF-16 surrogate, which cannot be stored";
export const isWellFormed = (value: string) => !LONE_SURROGATE.test(value);

/** A string stored exactly as sent: one holding a lone surrogate is refused, never changed. */
export const unicodeString = () => z.string().refine(isWellFormed, LONE_SURROGATE_MESSAGE);

/** Free text of bounded size: nothing a caller sends may grow a document without limit. */
export const text = (max = 1000) => unicodeString().max(max);

/**
 * Any character but the whitespace JavaScript's `trim()` removes, spelled out because `\s` differs between regex
 * engines (Python's includes U+001C..U+001F, JavaScript's U+FEFF): the document's validators read it as the server
 * does.
 */
export const NOT_BLANK = /[^\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/**
 * At most `max` characters as sent, at least one that is not whitespace; stored trimmed. The pattern states the
 * non-blank rule in the document; `abort` keeps a blank value to the one "too small" issue.
 */
export const requiredText = (max = 200) => unicodeString().max(max).trim().min(1, { abort: true }).regex(NOT_BLANK);

/** Service ids are 24 lowercase hex characters (MongoDB ObjectIds rendered as strings). */
export const serviceId = z.string().regex(/^[0-9a-f]{24}$/, "must be a 24-character hex id");

/** A reference to another resource as given by a caller: any non-empty string; unknown ids are 404s, not 400s. */
export const resourceRef = unicodeString().min(1).max(200);

const MAX_JSON_DEPTH = 20;

/**
 * Whether a JSON value nests more than `limit` arrays or objects deep. It never descends past `limit`, so a
 * value nested 100,000 levels deep is answered without exhausting the stack.
 */
export const nestsDeeperThan = (value: unknown, limit: number): boolean => {
  if (value === null || typeof value !== "object") return false;
  if (limit === 0) return true;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.some((child) => nestsDeeperThan(child, limit - 1));
};

/**
 * Where in a JSON value (at most MAX_JSON_DEPTH deep) something could not be stored as sent: a string or key with a
 * lone surrogate, or a number too large for a double (`1e400` parses to Infinity, which JSON cannot carry back).
 */
function firstUnstorable(
  value: unknown,
  path: PropertyKey[] = [],
): { path: PropertyKey[]; message: string } | undefined {
  if (typeof value === "string") return isWellFormed(value) ? undefined : { path, message: LONE_SURROGATE_MESSAGE };
  if (typeof value === "number") {
    return Number.isFinite(value) ? undefined : { path, message: "is beyond the range of a double (IEEE 754)" };
  }
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, item] of Object.entries(value)) {
    const itemPath = [...path, Array.isArray(value) ? Number(key) : key];
    if (!isWellFormed(key)) return { path: itemPath, message: `key ${LONE_SURROGATE_MESSAGE}` };
    const found = firstUnstorable(item, itemPath);
    if (found) return found;
  }
  return undefined;
}

/**
 * Any JSON value, nested at most 20 levels deep (deeper input is refused, not stored), stored exactly as sent: a
 * value that could not be (see firstUnstorable) is refused, naming the place inside it.
 */
export const jsonValue = z
  .unknown()
  .refine((value) => !nestsDeeperThan(value, MAX_JSON_DEPTH), {
    message: `nests deeper than ${MAX_JSON_DEPTH} levels`,
    abort: true,
  })
  .superRefine((value, ctx) => {
    const found = firstUnstorable(value);
    if (found) ctx.addIssue({ code: "custom", path: found.path, message: found.message });
  });

/**
 * Cursors of the lists with `nextCursor`: base64url of "v2:" and the 12 bytes of the last id seen. Every string of
 * this pattern decodes to a position, so the pattern is the whole rule (the server's pagination encodes them).
 */
export const CURSOR_PATTERN = /^djI6[A-Za-z0-9_-]{16}$/;

/** REST query values are text, which `Number()` reads too freely (`0x10` as 16, `1e1` as 10, ` ` as 0). */
function decimalDigitsOnly(value: number, ctx: z.RefinementCtx) {
  if (typeof value === "string" && !/^[0-9]+$/.test(value)) {
    ctx.addIssue({ code: "custom", message: "must be a whole number written in decimal digits" });
  }
  return value;
}

/** Query parameters shared by every paginated list. REST sends strings, hence the explicit coercion. */
export const pageQuery = {
  // `number` in and `<number>`: the typed input of tRPC callers stays a number; REST strings are coerced all the same.
  limit: z
    .preprocess(decimalDigitsOnly, z.coerce.number<number>().int().min(1).max(1000).default(10))
    .meta({ description: "Page size, 1 to 1000.", example: 10 }),
  cursor: z
    .string()
    .regex(CURSOR_PATTERN, "malformed cursor: pass the nextCursor of a previous page")
    .optional()
    .meta({ description: "Opaque cursor from `nextCursor` of the previous page." }),
};

/** The cursor of lists that page by the id of the last item received (credit entries, events). */
export const idCursor = serviceId.optional();

/** Fields that accompany the item array of contracts, invoices and customers lists. */
export const pageInfo = {
  total: z.number().int().min(0).meta({ description: "Number of the caller's items matching the query." }),
  hasMore: z.boolean(),
  nextCursor: z.string().optional().meta({ description: "Absent on the last page." }),
};

/** Stable error codes; each maps to one HTTP status (see the server's error table). */
export const errorCode = z.enum([
  "BAD_REQUEST",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "NOT_FOUND",
  "METHOD_NOT_SUPPORTED",
  "LIMIT_REACHED",
  "CONFLICT",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "TOO_MANY_REQUESTS",
  "INTERNAL_SERVER_ERROR",
  "SERVICE_UNAVAILABLE",
]);
export type ErrorCode = z.infer<typeof errorCode>;

/** The one table of error codes and their HTTP statuses, for the server that answers and the SDK that reads. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_SUPPORTED: 405,
  // Before CONFLICT: a status read alone (a proxy's answer) is CONFLICT, the general code of 409.
  LIMIT_REACHED: 409,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

export const errorIssue = z.object({
  path: z.string().meta({ description: "Dotted path of the invalid field; empty for the whole input." }),
  message: z.string(),
});
export type ErrorIssue = z.infer<typeof errorIssue>;

/** The one error body of every REST error. */
export const errorBody = z
  .object({
    code: errorCode,
    message: z.string(),
    issues: z.array(errorIssue).optional(),
    remaining: z.number().min(0).optional().meta({
      description: "LIMIT_REACHED: what may still be reserved (units of the meter, or money of the balance).",
    }),
  })
  .meta({ id: "Error" });
export type ErrorBody = z.infer<typeof errorBody>;
