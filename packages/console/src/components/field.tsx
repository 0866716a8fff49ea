import type { ReactNode } from "react";
import { type ApiProblem, problemOf } from "../api.js";

/**
 * What the API said about the field at `path`, if its last answer named it. `nested`: also what it said about the
 * fields inside it (`products.0.pricing` under `products`), each prefixed by its place there.
 */
export function issueAt(error: unknown, path: string, nested = false): string | undefined {
  if (error === null || error === undefined) return undefined;
  const problem: ApiProblem = problemOf(error);
  const issues = problem.issues ?? [];
  const exact = issues.find((issue) => issue.path === path)?.message;
  if (!nested) return exact;
  const inside = issues
    .filter((issue) => issue.path.startsWith(`${path}.`))
    .map((issue) => `${issue.path}: ${issue.message}`);
  const all = [...(exact ? [exact] : []), ...inside];
  return all.length > 0 ? all.join("; ") : undefined;
}

interface FieldProps {
  id: string;
  label: string;
  /** The input's field in the API's terms: a 400 naming it shows its message under the input. */
  path: string;
  error: unknown;
  /** A field holding a structure (JSON terms): the API's messages about its inner fields show under it too. */
  nested?: boolean;
  /** A hint under the label (the format expected), tied to the control. */
  hint?: string;
  children: (control: { id: string; "aria-invalid"?: true; "aria-describedby"?: string }) => ReactNode;
}

/** A labelled control of a form that calls the API, with the API's own message for it under it when it refused it. */
export function Field({ id, label, path, error, nested = false, hint, children }: FieldProps) {
  const issue = issueAt(error, path, nested);
  const issueId = `${id}-issue`;
  const hintId = `${id}-hint`;
  const describedBy = [hint && hintId, issue && issueId].filter(Boolean).join(" ") || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <span id={hintId} className="muted">
          {hint}
        </span>
      )}
      {children({
        id,
        ...(issue && { "aria-invalid": true as const }),
        ...(describedBy && { "aria-describedby": describedBy }),
      })}
      {issue && (
        <span id={issueId} className="field-issue">
          {issue}
        </span>
      )}
    </div>
  );
}

/**
 * A moment as the API takes it, from what a person types: an ISO day (`2024-01-01`) is that day's start at UTC;
 * anything else goes as typed, for the API to accept or refuse on its field. Empty: left out.
 */
export function isoMoment(typed: string): string | undefined {
  const value = typed.trim();
  if (value === "") return undefined;
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
}

/**
 * JSON typed into a field: parsed, or a problem shaped as the API's (a 400 naming the field), so that the form shows
 * it where the API's own would show. Empty: undefined.
 */
export function parseJsonField(typed: string, path: string): unknown {
  if (typed.trim() === "") return undefined;
  try {
    return JSON.parse(typed);
  } catch (caught) {
    throw new JsonFieldError(path, caught instanceof Error ? caught.message : String(caught));
  }
}

/** A field's JSON that does not parse: reported as the API reports a bad field, before any call. */
export class JsonFieldError extends Error {
  readonly issues: { path: string; message: string }[];
  constructor(path: string, message: string) {
    super(`${path} is not JSON: ${message}`);
    this.issues = [{ path, message: `not JSON: ${message}` }];
  }
}
