import { type AnchorHTMLAttributes, type MouseEvent, useEffect, useState } from "react";

/**
 * The console's own paths, under `/console` (the page's <base href>): history navigation, so that each page has an
 * address an operator can share and reload (the server answers every console path with the app).
 */
const basePath = () => new URL(document.baseURI).pathname.replace(/\/$/, "");

/** The current path below `/console`, e.g. `/customers/abc`; `/` for the console's root. */
const currentPath = () => {
  const path = window.location.pathname.slice(basePath().length);
  return path === "" ? "/" : path;
};

export function navigate(path: string) {
  window.history.pushState(null, "", basePath() + path);
  window.dispatchEvent(new PopStateEvent("popstate"));
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    window.addEventListener("popstate", update);
    return () => window.removeEventListener("popstate", update);
  }, []);
  return path;
}

/** A real link (opens in a new tab, shows its address), navigating in place on a plain click. */
export function Link({ to, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={basePath() + to} onClick={onClick} {...rest} />;
}
