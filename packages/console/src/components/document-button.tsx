import { useState } from "react";
import { serviceRoot } from "../api.js";
import { useSession } from "../session-context.js";
import { ProblemNotice } from "./status.js";

/**
 * A document (an invoice's or a credit note's PDF). It needs the token, which a plain link cannot send, so it is
 * fetched with the Authorization header and opened from memory. `name`: a longer accessible name that tells it from
 * its neighbours (it must contain `label`).
 */
export function DocumentButton({ path, label = "Open PDF", name }: { path: string; label?: string; name?: string }) {
  const { token } = useSession();
  const [problem, setProblem] = useState<{ message: string; code: string; requestId: string | undefined }>();
  const open = async () => {
    setProblem(undefined);
    const response = await fetch(`${serviceRoot()}${path}`, { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as { message?: string; code?: string };
      setProblem({
        message: body.message ?? response.statusText,
        code: body.code ?? `HTTP ${response.status}`,
        requestId: response.headers.get("x-request-id") ?? undefined,
      });
      return;
    }
    window.open(URL.createObjectURL(await response.blob()), "_blank", "noopener");
  };
  return (
    <>
      <button type="button" onClick={open} aria-label={name}>
        {label}
      </button>
      {problem && <ProblemNotice problem={problem} />}
    </>
  );
}
