import type { ButtonHTMLAttributes } from "react";
import { useSession } from "../session-context.js";

export const READ_ONLY_REASON = "Your token has the read scope: it can see everything and change nothing.";

/** A button that changes something: disabled, with the reason beside it, for a read token. */
export function WriteButton(props: ButtonHTMLAttributes<HTMLButtonElement>) {
  const { scope } = useSession();
  if (scope === "write") return <button type="button" {...props} />;
  return (
    <span className="write-disabled">
      <button type="button" {...props} disabled aria-describedby="read-only-reason" title={READ_ONLY_REASON} />
    </span>
  );
}
