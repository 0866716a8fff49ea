import type { AuditResource } from "@billing/shared";

/** What an audit entry says a call was about, read from the call's input and answer alone. */
export interface AuditSubject {
  resource: AuditResource | null;
  references: AuditResource[];
  changes: string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Fields of a body that name another resource (a contract's customer, a payment's invoice), besides the path's ids. */
const REFERENCE_FIELDS = ["customerId", "contractId", "invoiceId"];

/**
 * `contractId: "c1"` names a contract: the fields of `names` (the path's ids, and REFERENCE_FIELDS) holding text.
 * Only those: other `…Id` fields are data (a `taxId` is the customer's tax number, never a resource).
 */
function referencesOf(fields: Record<string, unknown>, names: readonly string[]): AuditResource[] {
  return names
    .filter((name) => typeof fields[name] === "string")
    .map((name) => ({ type: name.replace(/Id$/, ""), id: fields[name] as string }));
}

/**
 * The resource a call made or changed: the first member of its answer that is an object with an `id`
 * (`{ contract: { id, … } }` → `{ type: "contract", id }`), else its first `…Id` (`{ tokenId, token }` → the token).
 * Every answer of a write names its resource first.
 */
function resourceOf(output: unknown): AuditResource | null {
  if (!isRecord(output)) return null;
  for (const [type, value] of Object.entries(output)) {
    if (isRecord(value) && typeof value.id === "string") return { type, id: value.id };
  }
  const idFields = Object.keys(output).filter((key) => /.Id$/.test(key));
  return referencesOf(output, idFields)[0] ?? null;
}

/**
 * The subject of a call for the audit log: what it changed, what it named, and the names of the fields it sent
 * (never their values, so no secret reaches the log). `pathIds`: the names of the ids in the call's REST path. Ids the
 * answer and the path both name appear once. A billing run's answer names the invoices it made.
 */
export function auditSubjectOf(input: unknown, output: unknown, pathIds: readonly string[] = []): AuditSubject {
  const fields = isRecord(input) ? input : {};
  const run = isRecord(output) && isRecord(output.run) ? output.run.invoiceIds : undefined;
  if (Array.isArray(run)) return { ...billingRunSubject(run.map(String)), changes: Object.keys(fields).sort() };
  const resource = resourceOf(output);
  const names = [...new Set([...pathIds, ...REFERENCE_FIELDS])];
  const references = referencesOf(fields, names).filter((reference) => reference.id !== resource?.id);
  const changes = Object.keys(fields)
    .filter((key) => fields[key] !== undefined && !names.includes(key))
    .sort();
  return { resource, references, changes };
}

/** A run names at most this many of the invoices it made: an entry stays small however large the run. */
export const AUDITED_INVOICE_IDS = 100;

/** A billing run (the scheduler's or the CLI's) changed no resource of its own: it made invoices. */
export const billingRunSubject = (invoiceIds: readonly string[]): AuditSubject => ({
  resource: null,
  references: invoiceIds.slice(0, AUDITED_INVOICE_IDS).map((id) => ({ type: "invoice", id })),
  changes: [],
});
