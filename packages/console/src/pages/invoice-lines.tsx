import type { AppRouter } from "@billing/server";
import type { inferRouterOutputs } from "@trpc/server";
import { type Column, DataTable } from "../components/data-table.js";
import { formatMoney, formatQuantity, sumMoney } from "../format.js";

export type Invoice = inferRouterOutputs<AppRouter>["invoices"]["get"]["invoice"];
type LineItem = Invoice["lineItems"][number];

/** How a line's amount came about: its tiers, its packages, or quantity × unit price. */
function LineDetail({ line, currency }: { line: LineItem; currency: string }) {
  if (line.tiers && line.tiers.length > 0) {
    return (
      <ul className="tiers">
        {line.tiers.map((tier) => (
          <li key={`${tier.upTo}`}>
            {formatQuantity(tier.quantity)} × {formatMoney(tier.unitPrice, currency)}
            {tier.flatPrice > 0 && ` + ${formatMoney(tier.flatPrice, currency)} flat`} (up to{" "}
            {tier.upTo === null ? "∞" : formatQuantity(tier.upTo)}) = {formatMoney(tier.amount, currency)}
          </li>
        ))}
      </ul>
    );
  }
  if (line.packages) {
    const { count, size, price } = line.packages;
    return (
      <span>
        {count} packages of {formatQuantity(size)} × {formatMoney(price, currency)}
      </span>
    );
  }
  if (line.quantity !== undefined && line.unitPrice !== undefined) {
    return (
      <span>
        {formatQuantity(line.quantity)} × {formatMoney(line.unitPrice, currency)}
      </span>
    );
  }
  return null;
}

/** The tax a line adds, and under it the tax already in its price, if any (added to nothing). */
function LineTax({ line, currency }: { line: LineItem; currency: string }) {
  const { tax, taxInclusive } = line.revenueBreakdown;
  return (
    <>
      {formatMoney(tax, currency)}
      {taxInclusive !== 0 && <div className="muted">{formatMoney(taxInclusive, currency)} included</div>}
    </>
  );
}

const lineColumns = (currency: string): Column<LineItem>[] => [
  {
    name: "Line",
    cell: (line) => (
      <>
        {line.name}
        <div className="muted">{line.kind}</div>
      </>
    ),
  },
  { name: "How", cell: (line) => <LineDetail line={line} currency={currency} /> },
  { name: "Tax", numeric: true, cell: (line) => <LineTax line={line} currency={currency} /> },
  {
    name: "Amount",
    numeric: true,
    cell: (line) => <LineAmount line={line} currency={currency} />,
  },
];

/**
 * A line's charge (subtotal + overage; negative on a MAXIMUM line, which takes off what its product charged beyond
 * its maximum), and under it the discount taken off it, if any.
 */
function LineAmount({ line, currency }: { line: LineItem; currency: string }) {
  const { subtotal, overage, discount } = line.revenueBreakdown;
  return (
    <>
      {formatMoney(sumMoney(subtotal, overage), currency)}
      {discount !== 0 && <div className="muted">{formatMoney(-discount, currency)} discount</div>}
    </>
  );
}

export function InvoiceLines({ invoice }: { invoice: Invoice }) {
  return (
    <DataTable
      className="lines"
      caption="Lines"
      rows={invoice.lineItems}
      columns={lineColumns(invoice.currency)}
      // Lines have no id of their own; their order is the invoice's, and never changes.
      rowKey={(_, index) => String(index)}
    />
  );
}

/** A rate's name, with its rate unless the name says it already ("VAT 20%", not "VAT 20% 20%"). */
export const taxLabel = (name: string, rate: number) =>
  name.replace(/\s/g, "").includes(`${rate}%`) ? name : `${name} ${rate}%`;

/** The rows that stand out: what the invoice comes to, and what is still owed on it. */
const GRAND_ROWS = new Set(["Total", "Amount due"]);

/**
 * The invoice's totals in the order the API computes them, as its PDF prints them: subtotal + overage − discount +
 * tax − credits used; tax included in the prices is already in them, so it is shown (when there is any), not added.
 */
export function InvoiceTotals({ invoice }: { invoice: Invoice }) {
  const { currency, revenueBreakdown: breakdown } = invoice;
  const rows: [string, number][] = [
    ["Subtotal", breakdown.subtotal],
    ["Overage", breakdown.overage],
    ["Discount", -breakdown.discount],
    ...invoice.taxSummary.map((tax): [string, number] => [
      `${taxLabel(tax.name, tax.rate)}${tax.inclusive ? " (included)" : ""}`,
      tax.amount,
    ]),
    ["Tax", breakdown.tax],
    ...(breakdown.taxInclusive === 0 ? [] : [["Tax included", breakdown.taxInclusive] as [string, number]]),
    ["Credits used", -breakdown.creditsUsed],
    ["Total", breakdown.total],
    ["Paid", -invoice.amountPaid],
    ["Credited", -invoice.amountCredited],
    ["Amount due", invoice.amountDue],
  ];
  return (
    <table className="totals">
      <caption>Totals</caption>
      <tbody>
        {rows.map(([label, amount]) => (
          <tr key={label} className={GRAND_ROWS.has(label) ? "grand" : undefined}>
            <th scope="row">{label}</th>
            <td className="number">{formatMoney(amount, currency)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
