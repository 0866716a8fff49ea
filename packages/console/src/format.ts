/** Amounts arrive as decimal numbers in their currency (at most 6 decimals); shown with the currency's own digits. */
export function formatMoney(amount: number, currency: string): string {
  try {
    // `+ 0` turns −0 (a reduction of nothing) into 0, which Intl would print as "-$0.00".
    const shown = amount + 0;
    return new Intl.NumberFormat("en-US", { style: "currency", currency, maximumFractionDigits: 6 }).format(shown);
  } catch {
    return `${amount} ${currency}`;
  }
}

export const formatDate = (iso: string) => iso.slice(0, 10);

/** A day typed as the rest of the console writes them (ISO), whatever the browser's locale. */
export const ISO_DAY = "\\d{4}-\\d{2}-\\d{2}";
export const isDay = (text: string) => new RegExp(`^${ISO_DAY}$`).test(text);

export const formatDateTime = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;

export const formatQuantity = (value: number) =>
  new Intl.NumberFormat("en-US", { maximumFractionDigits: 6 }).format(value);

/** A sum of API amounts (each at most 6 decimals), exact: added as integer micro-units, not as binary fractions. */
export const sumMoney = (...amounts: number[]) =>
  amounts.reduce((micros, amount) => micros + Math.round(amount * 1_000_000), 0) / 1_000_000;
