import type { CreditNote, Entitlement, Invoice } from "@billing/shared";
import { formatAmount, formatDate, formatQuantity } from "./format.js";
import { escapeHtml } from "./html.js";

/**
 * What the customer portal shows, as services/collection/portal.ts gathers it (`PortalView` there adds the credit
 * balance in micro-units) and as this page renders it (`PortalPage` adds the balance as a decimal and the links).
 * Declared here, where the service (which may import documents/) and the page both see it.
 */
export interface PortalContent {
  customerName: string;
  invoices: Invoice[];
  creditNotes: CreditNote[];
  currency: string;
  canPay: boolean;
  /** The open cycle's usage per meter (as GET …/entitlements). */
  usage: Entitlement[];
}

/** The portal's page: its content, the credit balance as the API gives amounts, and its links. */
export interface PortalPage extends PortalContent {
  creditBalance: number;
  /** The portal's own path (`/portal/<token>`): invoice links are under it. */
  base: string;
  returnUrl?: string;
}

const STYLE = `
body { font: 16px/1.5 system-ui, Helvetica, Arial, sans-serif; color: #111; max-width: 900px; margin: 24px auto;
  padding: 0 16px; }
h1 { font-size: 24px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 32px 0 8px; }
table { border-collapse: collapse; width: 100%; }
th { text-align: left; background: #eee; padding: 6px; } td { padding: 6px; border-bottom: 1px solid #ddd; }
.figure { text-align: right; white-space: nowrap; }
button { font: inherit; padding: 4px 12px; background: #0b57d0; color: #fff; border: 0; border-radius: 4px; }
a { color: #0b57d0; } .muted { color: #444; }
`;

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ` +
  `content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style>` +
  `</head><body><main>${body}</main></body></html>`;

const money = (amount: number, currency: string) => `${formatAmount(amount, currency)} ${currency}`;

const statusOf = (invoice: Invoice) =>
  invoice.status === "VOIDED" ? "Voided" : invoice.billingStatus === "None" ? "Unpaid" : invoice.billingStatus;

/**
 * The customer's portal: the credit balance, the open cycle's usage per meter, invoices (status, amount due, PDF, a
 * "Pay" button while something is due) and credit notes. Plain HTML with one form per payable invoice; no script.
 */
export function renderPortalPage(view: PortalPage): string {
  const invoiceRows = view.invoices
    .map((invoice) => {
      const pdf = `${view.base}/invoices/${invoice.id}/pdf`;
      const pay =
        view.canPay && invoice.status === "FINALIZED" && invoice.amountDue > 0
          ? `<form method="post" action="${escapeHtml(`${view.base}/invoices/${invoice.id}/pay`)}">` +
            `<button type="submit">Pay ${escapeHtml(money(invoice.amountDue, invoice.currency))}</button></form>`
          : "";
      return (
        `<tr><td>${escapeHtml(invoice.number ?? invoice.id)}</td><td>${escapeHtml(formatDate(invoice.dueDate))}</td>` +
        `<td>${escapeHtml(statusOf(invoice))}${invoice.dispute ? " (disputed)" : ""}</td>` +
        `<td class="figure">${escapeHtml(formatAmount(invoice.amount, invoice.currency))}</td>` +
        `<td class="figure">${escapeHtml(formatAmount(invoice.amountDue, invoice.currency))}</td>` +
        `<td><a href="${escapeHtml(pdf)}">PDF` +
        `<span class="muted"> of ${escapeHtml(invoice.number ?? "")}</span></a></td>` +
        `<td>${pay}</td></tr>`
      );
    })
    .join("");
  const noteRows = view.creditNotes
    .map(
      (note) =>
        `<tr><td>${escapeHtml(note.number)}</td><td>${escapeHtml(formatDate(note.createdAt))}</td>` +
        `<td class="figure">${escapeHtml(formatAmount(note.amount, note.currency))}</td></tr>`,
    )
    .join("");
  const usageRows = view.usage
    .map(
      (meter) =>
        `<tr><td>${escapeHtml(meter.meterKey)}</td>` +
        `<td>${escapeHtml(formatDate(meter.periodStart))} to ${escapeHtml(formatDate(meter.periodEnd))}</td>` +
        `<td class="figure">${escapeHtml(formatQuantity(meter.usage))}</td>` +
        `<td class="figure">${meter.limit === null ? "No limit" : escapeHtml(formatQuantity(meter.limit))}</td></tr>`,
    )
    .join("");
  const back = view.returnUrl ? `<p><a href="${escapeHtml(view.returnUrl)}">Back</a></p>` : "";
  return page(
    `Billing: ${view.customerName}`,
    `<h1>${escapeHtml(view.customerName)}</h1>${back}` +
      `<p>Credit balance: <strong>${escapeHtml(money(view.creditBalance, view.currency))}</strong></p>` +
      `<h2>Usage this period</h2>` +
      (usageRows
        ? `<table><thead><tr><th scope="col">Meter</th><th scope="col">Period</th>` +
          `<th scope="col" class="figure">Usage</th><th scope="col" class="figure">Included</th></tr></thead>` +
          `<tbody>${usageRows}</tbody></table>`
        : "<p>No metered usage in this period.</p>") +
      `<h2>Invoices</h2>` +
      (invoiceRows
        ? `<table><thead><tr><th scope="col">Number</th><th scope="col">Due</th><th scope="col">Status</th>` +
          `<th scope="col" class="figure">Amount</th><th scope="col" class="figure">Due now</th>` +
          `<th scope="col">Document</th><th scope="col">Payment</th></tr></thead><tbody>${invoiceRows}</tbody></table>`
        : "<p>No invoices yet.</p>") +
      `<h2>Credit notes</h2>` +
      (noteRows
        ? `<table><thead><tr><th scope="col">Number</th><th scope="col">Issued</th>` +
          `<th scope="col" class="figure">Amount</th></tr></thead><tbody>${noteRows}</tbody></table>`
        : "<p>No credit notes.</p>"),
  );
}

/** A refusal as a page: an expired or changed link (401), an invoice not of this customer (404), nothing due (409). */
export const renderPortalRefusal = (message: string) =>
  page("Billing portal", `<h1>This page cannot be shown</h1><p>${escapeHtml(message)}</p>`);
