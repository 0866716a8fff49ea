import type { ReactNode } from "react";

/** A titled panel of a page, named by its heading for assistive technology. */
export function Panel({
  id,
  title,
  wide = false,
  children,
}: {
  id: string;
  title: string;
  /** Across the page's whole width. */
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    <section className={wide ? "panel wide" : "panel"} aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{title}</h2>
      {children}
    </section>
  );
}
