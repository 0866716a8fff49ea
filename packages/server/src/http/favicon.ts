/**
 * The icon browsers ask for at `/favicon.ico` (the console's tab, the API reference's): a small SVG, which every
 * current browser reads whatever the name says. Without it each page load logs a 404.
 */
export const FAVICON = {
  path: "/favicon.ico",
  contentType: "image/svg+xml",
  body:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
    '<rect width="32" height="32" rx="6" fill="#111827"/>' +
    '<text x="16" y="23" font-family="sans-serif" font-size="18" font-weight="700" fill="#fff" ' +
    'text-anchor="middle">B</text></svg>',
};
