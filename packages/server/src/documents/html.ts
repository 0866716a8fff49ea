import type { DocumentContent, LabelledValue, Party } from "./content.js";
import { addressLines } from "./format.js";

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Every value goes through here: names and addresses are the caller's input, never markup. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => ENTITIES[character] ?? "");

const STYLE = `
body { font: 14px/1.4 Helvetica, Arial, sans-serif; color: #111; max-width: 820px; margin: 32px auto; padding: 0 16px; }
header, .parties { display: flex; justify-content: space-between; gap: 32px; }
header { border-bottom: 1px solid #ccc; padding-bottom: 16px; margin-bottom: 16px; }
h1 { margin: 0; font-size: 28px; text-align: right; }
.number { text-align: right; font-size: 16px; }
.party p, .heading { margin: 0; }
.heading { font-size: 11px; font-weight: bold; color: #555; text-transform: uppercase; }
table { border-collapse: collapse; width: 100%; }
.lines { margin: 24px 0; }
.lines th { background: #eee; text-align: left; padding: 6px; }
.lines td { padding: 6px; border-bottom: 1px solid #ddd; vertical-align: top; }
.lines .figure, .pairs td:last-child { text-align: right; white-space: nowrap; }
.detail { font-size: 11px; color: #555; }
.pairs td { padding: 2px 0 2px 16px; }
.pairs td:first-child { color: #555; padding-left: 0; }
.totals { margin-left: auto; width: 320px; }
.emphasis td { font-weight: bold; color: #111 !important; border-top: 1px solid #ccc; }
.stamp { position: fixed; top: 18%; left: 0; right: 0; text-align: center; font: bold 120px Helvetica, sans-serif;
  color: rgba(204, 0, 0, 0.2); transform: rotate(-20deg); pointer-events: none; }
footer { font-size: 11px; color: #555; margin-top: 16px; }
`;

const partyHtml = (party: Party, heading?: string) =>
  `<div class="party">${heading ? `<p class="heading">${escapeHtml(heading)}</p>` : ""}` +
  `<p><strong>${escapeHtml(party.name)}</strong></p>` +
  [
    ...addressLines(party.address),
    ...(party.taxId ? [`Tax ID: ${party.taxId}`] : []),
    ...(party.email ? [party.email] : []),
  ]
    .map((line) => `<p>${escapeHtml(line)}</p>`)
    .join("") +
  "</div>";

const pairsHtml = (pairs: LabelledValue[], className: string) =>
  `<table class="pairs ${className}">` +
  pairs
    .map(
      ({ label, value, emphasis }) =>
        `<tr${emphasis ? ' class="emphasis"' : ""}><td>${escapeHtml(label)}</td><td>${escapeHtml(value)}</td></tr>`,
    )
    .join("") +
  "</table>";

const linesHtml = (content: DocumentContent) =>
  '<table class="lines"><thead><tr><th>Description</th><th class="figure">Quantity</th>' +
  '<th class="figure">Unit price</th><th class="figure">Amount</th></tr></thead><tbody>' +
  content.lines
    .map(
      (line) =>
        `<tr><td>${escapeHtml(line.description)}` +
        line.details.map((detail) => `<div class="detail">${escapeHtml(detail)}</div>`).join("") +
        "</td>" +
        [line.quantity, line.unitPrice, line.amount]
          .map((cell) => `<td class="figure">${escapeHtml(cell)}</td>`)
          .join("") +
        "</tr>",
    )
    .join("") +
  "</tbody></table>";

/** A document's content as one self-contained HTML page (inline style, no script), with the PDF's blocks. */
export function renderHtml(content: DocumentContent): string {
  const title = `${content.title} ${content.number}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${content.stamp ? `<div class="stamp">${escapeHtml(content.stamp)}</div>` : ""}
<header>${partyHtml(content.seller)}<div><h1>${escapeHtml(content.title)}</h1>
<p class="number">${escapeHtml(content.number)}</p></div></header>
<section class="parties">${partyHtml(content.buyer, "Bill to")}${pairsHtml(content.facts, "facts")}</section>
${linesHtml(content)}
${pairsHtml(content.totals, "totals")}
<footer>${escapeHtml(content.footer)}</footer>
</body>
</html>
`;
}
