import { useEffect, useRef, useState } from "react";
import { WriteButton } from "./write-button.js";

/**
 * A change that cannot be undone: the first press asks, saying what will happen; only the second, on the button that
 * then has the focus, does it. Escape or "Cancel" takes it back. Keyboard operable throughout.
 */
export function ConfirmButton({
  label,
  confirmLabel,
  warning,
  onConfirm,
  pending = false,
  finance = false,
  name,
}: {
  label: string;
  confirmLabel: string;
  /** What cannot be undone, in a sentence shown while asking. */
  warning: string;
  onConfirm: () => void;
  pending?: boolean;
  finance?: boolean;
  /** An accessible name telling it from its neighbours (it must contain `label`). */
  name?: string;
}) {
  const [asking, setAsking] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirm.current?.focus();
  }, [asking]);
  if (!asking)
    return (
      <WriteButton finance={finance} onClick={() => setAsking(true)} aria-label={name}>
        {label}
      </WriteButton>
    );
  return (
    <fieldset className="confirm">
      <legend className="visually-hidden">{name ?? label}</legend>
      <span className="muted">{warning}</span>{" "}
      <button
        ref={confirm}
        type="button"
        className="danger"
        disabled={pending}
        onClick={() => {
          onConfirm();
          setAsking(false);
        }}
        onKeyDown={(event) => event.key === "Escape" && setAsking(false)}
      >
        {confirmLabel}
      </button>{" "}
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </fieldset>
  );
}
