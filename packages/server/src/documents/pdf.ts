import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import PDFDocument from "pdfkit";
import type { DocumentContent, LabelledValue, Party } from "./content.js";
import { addressLines } from "./format.js";

/** A4 in points, with the margins every block aligns to. */
const PAGE = { width: 595.28, height: 841.89, margin: 50 };
const CONTENT_WIDTH = PAGE.width - 2 * PAGE.margin;
const GREY = "#555555";
const RULE = "#cccccc";

/** The lines table's columns: the description takes what the three figures leave. */
const COLUMNS = [
  { header: "Description", width: CONTENT_WIDTH - 240, align: "left" },
  { header: "Quantity", width: 70, align: "right" },
  { header: "Unit price", width: 80, align: "right" },
  { header: "Amount", width: 90, align: "right" },
] as const;

type Pdf = PDFKit.PDFDocument;

/**
 * DejaVu Sans (from the `dejavu-fonts-ttf` package), embedded as a subset: it draws Latin, Greek, Cyrillic and more,
 * where pdfkit's standard fonts draw only Windows-1252 and showed any other character as `?`. Read once per process.
 */
const FONT_FILES = { regular: "DejaVuSans.ttf", bold: "DejaVuSans-Bold.ttf" } as const;
const FONTS = { regular: "Regular", bold: "Bold" } as const;
const fontDirectory = dirname(createRequire(import.meta.url).resolve("dejavu-fonts-ttf/package.json"));
const fontData = Object.fromEntries(
  Object.entries(FONT_FILES).map(([style, file]) => [style, readFileSync(join(fontDirectory, "ttf", file))]),
) as Record<keyof typeof FONT_FILES, Buffer>;

/** Composed, so that a decomposed `é` (e + combining accent) is drawn as the one glyph the font has for it. */
function composed<T>(value: T): T {
  if (typeof value === "string") return value.normalize("NFC") as T;
  if (Array.isArray(value)) return value.map(composed) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, composed(field)])) as T;
  }
  return value;
}

function partyLines(party: Party): string[] {
  return [
    ...addressLines(party.address),
    ...(party.taxId ? [`Tax ID: ${party.taxId}`] : []),
    ...(party.email ? [party.email] : []),
  ];
}

/** A party's block at (x, y) within `width`; returns the y below it. */
function drawParty(pdf: Pdf, party: Party, x: number, y: number, width: number, heading?: string): number {
  let cursor = y;
  if (heading) {
    pdf.font(FONTS.bold).fontSize(8).fillColor(GREY).text(heading.toUpperCase(), x, cursor, { width });
    cursor = pdf.y + 2;
  }
  pdf.font(FONTS.bold).fontSize(11).fillColor("black").text(party.name, x, cursor, { width });
  pdf.font(FONTS.regular).fontSize(9);
  for (const line of partyLines(party)) pdf.text(line, x, pdf.y, { width });
  return pdf.y;
}

/** The room values take in a block of pairs: the widest, as drawn at its size, plus a gap before it. */
function valuesWidth(pdf: Pdf, pairs: LabelledValue[]): number {
  const widths = pairs.map(({ value, emphasis }) =>
    pdf
      .font(emphasis ? FONTS.bold : FONTS.regular)
      .fontSize(emphasis ? 10.5 : 9)
      .widthOfString(value),
  );
  return Math.ceil(Math.max(0, ...widths)) + 16;
}

/**
 * Label and value pairs, labels left and values right within `width`; returns the y below them. `labelWidth` "fit":
 * the labels get all the room the widest value leaves (a long tax name wraps only when it must).
 */
function drawPairs(
  pdf: Pdf,
  pairs: LabelledValue[],
  x: number,
  y: number,
  width: number,
  fixedLabelWidth: number | "fit",
): number {
  const labelWidth = fixedLabelWidth === "fit" ? width - valuesWidth(pdf, pairs) : fixedLabelWidth;
  let cursor = y;
  for (const { label, value, emphasis } of pairs) {
    const font = emphasis ? FONTS.bold : FONTS.regular;
    pdf
      .font(font)
      .fontSize(emphasis ? 10.5 : 9)
      .fillColor("black");
    const valueWidth = width - labelWidth;
    const height = Math.max(
      pdf.heightOfString(value, { width: valueWidth }),
      pdf.heightOfString(label, { width: labelWidth }),
    );
    if (emphasis)
      pdf
        .moveTo(x, cursor - 2)
        .lineTo(x + width, cursor - 2)
        .strokeColor(RULE)
        .stroke();
    pdf.fillColor(emphasis ? "black" : GREY).text(label, x, cursor, { width: labelWidth });
    pdf.fillColor("black").text(value, x + labelWidth, cursor, { width: valueWidth, align: "right" });
    cursor += height + 4;
  }
  return cursor;
}

function drawTableHeader(pdf: Pdf, y: number): number {
  pdf.rect(PAGE.margin, y, CONTENT_WIDTH, 18).fillColor("#eeeeee").fill();
  pdf.font(FONTS.bold).fontSize(9).fillColor("black");
  let x = PAGE.margin;
  for (const column of COLUMNS) {
    pdf.text(column.header, x + 4, y + 5, { width: column.width - 8, align: column.align });
    x += column.width;
  }
  return y + 22;
}

/** The lines table, breaking onto new pages (header repeated) where a row would not fit. */
function drawLines(pdf: Pdf, content: DocumentContent, top: number): number {
  const bottom = PAGE.height - PAGE.margin;
  let y = drawTableHeader(pdf, top);
  for (const line of content.lines) {
    const values = [line.description, line.quantity, line.unitPrice, line.amount];
    const cells = COLUMNS.map((column, index) => ({ ...column, text: values[index] ?? "" }));
    pdf.font(FONTS.regular).fontSize(9);
    const rowHeight = Math.max(...cells.map((cell) => pdf.heightOfString(cell.text, { width: cell.width - 8 })));
    pdf.fontSize(7.5);
    const detailsHeight = line.details.reduce(
      (sum, detail) => sum + pdf.heightOfString(detail, { width: CONTENT_WIDTH - 24 }) + 1,
      0,
    );
    if (y + rowHeight + detailsHeight + 8 > bottom) {
      pdf.addPage();
      y = drawTableHeader(pdf, PAGE.margin);
    }
    pdf.font(FONTS.regular).fontSize(9).fillColor("black");
    let x = PAGE.margin;
    for (const cell of cells) {
      pdf.text(cell.text, x + 4, y, { width: cell.width - 8, align: cell.align });
      x += cell.width;
    }
    y += rowHeight + 1;
    pdf.fontSize(7.5).fillColor(GREY);
    for (const detail of line.details) {
      pdf.text(detail, PAGE.margin + 16, y, { width: CONTENT_WIDTH - 24 });
      y = pdf.y + 1;
    }
    y += 4;
    pdf
      .moveTo(PAGE.margin, y - 2)
      .lineTo(PAGE.margin + CONTENT_WIDTH, y - 2)
      .strokeColor(RULE)
      .lineWidth(0.5)
      .stroke();
  }
  return y;
}

/**
 * Drawn on every page once all are laid out: the title, number and page in the bottom margin, so that a loose page
 * still names its document, and the stamp of a voided document across the page, over the content.
 */
function finishPages(pdf: Pdf, content: DocumentContent) {
  const { start, count } = pdf.bufferedPageRange();
  for (let page = start; page < start + count; page++) {
    pdf.switchToPage(page);
    // Text in the bottom margin would start a new page unless the margin is lifted while it is written.
    pdf.page.margins.bottom = 0;
    pdf.font(FONTS.regular).fontSize(8).fillColor(GREY);
    const label = `${content.title} ${content.number} · page ${page - start + 1} of ${count}`;
    pdf.text(label, PAGE.margin, PAGE.height - PAGE.margin + 16, { width: CONTENT_WIDTH, align: "right" });
    if (content.stamp) drawStamp(pdf, content.stamp);
  }
}

/** Where the stamp's middle is: over the header and the first lines, above where the totals of a short invoice are. */
const STAMP_CENTER_Y = PAGE.height * 0.3;

function drawStamp(pdf: Pdf, stamp: string) {
  pdf.save();
  pdf.rotate(-20, { origin: [PAGE.width / 2, STAMP_CENTER_Y] });
  pdf.font(FONTS.bold).fontSize(110).fillColor("#cc0000").fillOpacity(0.2);
  pdf.text(stamp, 0, STAMP_CENTER_Y - 55, { width: PAGE.width, align: "center", lineBreak: false });
  pdf.restore();
}

/**
 * A document's content as a PDF: a header with the seller and the title and number, the buyer beside the dates, the
 * lines table, the totals, in DejaVu Sans (above): no browser.
 */
export function renderPdf(documentContent: DocumentContent): Promise<Uint8Array> {
  const content = composed(documentContent);
  const pdf = new PDFDocument({
    size: "A4",
    margin: PAGE.margin,
    bufferPages: true,
    info: { Title: `${content.title} ${content.number}`, Author: content.seller.name },
  });
  pdf.registerFont(FONTS.regular, fontData.regular);
  pdf.registerFont(FONTS.bold, fontData.bold);
  const chunks: Buffer[] = [];
  pdf.on("data", (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Uint8Array>((resolve, reject) => {
    pdf.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))));
    pdf.on("error", reject);
  });

  const half = CONTENT_WIDTH / 2;
  const right = PAGE.margin + half + 20;
  const sellerBottom = drawParty(pdf, content.seller, PAGE.margin, PAGE.margin, half);
  pdf.font(FONTS.bold).fontSize(22).fillColor("black");
  pdf.text(content.title, right, PAGE.margin, { width: half - 20, align: "right" });
  pdf
    .font(FONTS.regular)
    .fontSize(12)
    .text(content.number, right, pdf.y, { width: half - 20, align: "right" });
  const headerBottom = Math.max(sellerBottom, pdf.y) + 16;
  pdf
    .moveTo(PAGE.margin, headerBottom)
    .lineTo(PAGE.margin + CONTENT_WIDTH, headerBottom)
    .strokeColor(RULE)
    .stroke();

  const blocksTop = headerBottom + 14;
  const buyerBottom = drawParty(pdf, content.buyer, PAGE.margin, blocksTop, half, "Bill to");
  const factsBottom = drawPairs(pdf, content.facts, right, blocksTop, half - 20, 80);
  let y = drawLines(pdf, content, Math.max(buyerBottom, factsBottom) + 20) + 8;

  // Half the page and more: the totals' labels (a tax's name, rate and base) fit on one line beside their values.
  const totalsWidth = 380;
  const totalsHeight = content.totals.length * 16;
  if (y + totalsHeight + 40 > PAGE.height - PAGE.margin) {
    pdf.addPage();
    y = PAGE.margin;
  }
  y = drawPairs(pdf, content.totals, PAGE.margin + CONTENT_WIDTH - totalsWidth, y, totalsWidth, "fit");
  pdf
    .font(FONTS.regular)
    .fontSize(8)
    .fillColor(GREY)
    .text(content.footer, PAGE.margin, y + 12, { width: CONTENT_WIDTH });

  finishPages(pdf, content);
  pdf.end();
  return done;
}
