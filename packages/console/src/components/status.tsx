import { type ApiProblem, problemOf } from "../api.js";

/** Every failed call shows the API's own message and code, and the request id to quote. */
export function ProblemNotice({ error, problem = problemOf(error) }: { error?: unknown; problem?: ApiProblem }) {
  return (
    <div className="problem" role="alert">
      <strong>{problem.message}</strong>
      <div className="muted">
        {problem.code}
        {problem.requestId && (
          <>
            {" · requestId "}
            <code>{problem.requestId}</code>
          </>
        )}
      </div>
    </div>
  );
}

export const Loading = ({ what }: { what: string }) => (
  <p className="muted" role="status">
    Loading {what}…
  </p>
);

export const Empty = ({ children }: { children: string }) => <p className="empty">{children}</p>;

/** The outcome of a query: its problem, its loading line, or nothing (the caller shows the data). */
export function QueryStatus({ query, what }: { query: { error: unknown; isPending: boolean }; what: string }) {
  if (query.error) return <ProblemNotice error={query.error} />;
  if (query.isPending) return <Loading what={what} />;
  return null;
}
