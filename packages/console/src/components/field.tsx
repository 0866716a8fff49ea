import type { ReactNode } from "react";
import { type ApiProblem, problemOf } from "../api.js";

/** What the API said about the field at `path`, if its last answer named it. */
export function issueAt(error: unknown, path: string): string | undefined {
  if (error === null || error === undefined) return undefined;
  const problem: ApiProblem = problemOf(error);
  return problem.issues?.find((issue) => issue.path === path)?.message;
}

interface FieldProps {
  id: string;
  label: string;
  /** The input's field in the API's terms: a 400 naming it shows its message under the input. */
  path: string;
  error: unknown;
  children: (control: { id: string; "aria-invalid"?: true; "aria-describedby"?: string }) => ReactNode;
}

/** A labelled control of a form that calls the API, with the API's own message for it under it when it refused it. */
export function Field({ id, label, path, error, children }: FieldProps) {
  const issue = issueAt(error, path);
  const issueId = `${id}-issue`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(issue ? { id, "aria-invalid": true, "aria-describedby": issueId } : { id })}
      {issue && (
        <span id={issueId} className="field-issue">
          {issue}
        </span>
      )}
    </div>
  );
}
