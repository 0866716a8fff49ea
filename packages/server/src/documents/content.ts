import type { Address } from "./format.js";

/** A party of a document: who issues it (the account) or who receives it (the customer). */
export interface Party {
  name: string;
  address?: Address;
  taxId?: string;
  email?: string;
}

/** One row of the lines table; `details` are the smaller rows beneath it (tiers, packages, the line's breakdown). */
export interface DocumentLine {
  description: string;
  quantity: string;
  unitPrice: string;
  amount: string;
  details: string[];
}

export interface LabelledValue {
  label: string;
  value: string;
  /** Set on the one or two figures a reader looks for first (total, amount due). */
  emphasis?: boolean;
}

/**
 * What a document says, laid out by nothing: the PDF and the HTML renderers draw the same content, so the two
 * formats of one document can never disagree. Every value is already text.
 */
/**
 * A test account's document (its billing time a test clock's): stamped TEST across every page, beside VOID when it
 * is void, and saying so under the totals, so that it is never taken for a live account's.
 */
export const markedAsTest = (content: DocumentContent): DocumentContent => ({
  ...content,
  stamp: content.stamp ? `TEST ${content.stamp}` : "TEST",
  footer: `TEST: issued by a test account, on its test clock's time. ${content.footer}`,
});

export interface DocumentContent {
  /** "INVOICE" or "CREDIT NOTE". */
  title: string;
  /** The document's number, or "DRAFT" for an invoice that has none yet. */
  number: string;
  /** "VOID" across a voided document; absent otherwise. */
  stamp?: string;
  seller: Party;
  buyer: Party;
  facts: LabelledValue[];
  lines: DocumentLine[];
  totals: LabelledValue[];
  /** A sentence under the totals (all amounts in USD). */
  footer: string;
}
