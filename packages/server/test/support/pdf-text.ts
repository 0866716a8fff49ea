import { extractText, getDocumentProxy } from "unpdf";
import { expect } from "vitest";

/**
 * A PDF's text as a reader's copy would give it, pages joined: each row of the lines table comes out as one line of
 * text ("Storage GB 25 2.00 60.00"), so a test can look for a whole row.
 */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  // pdf.js takes ownership of the buffer it reads: hand it a copy so that the caller's bytes stay usable.
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  return (await extractText(pdf, { mergePages: true })).text;
}

/** The text's lines, for assertions on whole rows. */
export const pdfLines = async (bytes: Uint8Array): Promise<string[]> => (await pdfText(bytes)).split("\n");

/** Asserts that each of `rows` is a whole line of the PDF's text (in any order, other lines between them). */
export async function expectPdfRows(bytes: Uint8Array, rows: string[]) {
  expect(await pdfLines(bytes)).toEqual(expect.arrayContaining(rows));
}
