import type { ButtonHTMLAttributes } from "react";
import type { Scope } from "../session.js";
import { useSession } from "../session-context.js";

/** What a token of each scope but `write` may not do, shown once under the header and beside each disabled button. */
export const SCOPE_REASONS: Record<Exclude<Scope, "write">, string> = {
  read: "Your token has the read scope: it can see everything and change nothing.",
  finance:
    "Your token has the finance scope: it can record payments, void, finalize, issue credit notes and grants and " +
    "run billing, and change no configuration.",
};

export const SCOPE_LABELS: Record<Scope, string> = {
  read: "Read-only token",
  write: "Write token",
  finance: "Finance token",
};

/** The id of the notice that says why buttons are disabled. */
export const SCOPE_REASON_ID = "scope-reason";

/**
 * A button that changes something: disabled, with the reason beside it, for a token whose scope may not make the
 * change. `finance`: a finance team's work (a payment, a void, a run), which a finance token may do too.
 */
export function WriteButton({ finance, ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { finance?: boolean }) {
  const { scope } = useSession();
  if (scope === "write" || (finance && scope === "finance")) return <button type="button" {...props} />;
  return (
    <span className="write-disabled">
      <button type="button" {...props} disabled aria-describedby={SCOPE_REASON_ID} title={SCOPE_REASONS[scope]} />
    </span>
  );
}
