import { type Api, createBenchAccount } from "../api.js";
import type { BenchOptions } from "../options.js";
import { progress } from "../progress.js";
import { startServer } from "../server.js";
import { interleavedRounds, type LatencySummary, ratio, summarize } from "../stats.js";

export interface DocumentsResult {
  lines: number;
  json: LatencySummary;
  pdf: LatencySummary;
  html: LatencySummary;
  pdfBytes: number;
  /** PDF p50 / JSON p50 of the same invoice: the cost of rendering it. */
  pdfToJson: number;
  htmlToJson: number;
}

const LINES = 100;

/** A GET answered with a body of bytes, which must be a 200. */
async function download(url: string, token: string): Promise<Uint8Array> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status} ${Buffer.from(bytes).toString()}`);
  return bytes;
}

/**
 * One invoice of 100 lines (a contract of 100 flat prices, billed once), read as JSON (`GET /invoices/{id}`, the
 * baseline: the same authentication, the same reads) and downloaded as a PDF and as HTML, alternately.
 */
export async function benchDocuments(serverUrl: string, api: Api, seconds: number): Promise<DocumentsResult> {
  const { customer } = await api.call("POST", "/customers", { name: "Documents bench customer" }, 201);
  const products = Array.from({ length: LINES }, (_, index) => ({
    displayName: `Product ${index + 1}`,
    scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
    pricing: { type: "FLAT", price: index + 0.99 },
  }));
  const contract = {
    customerId: customer.id,
    name: "Documents",
    startDate: "2025-01-01T00:00:00Z",
    endDate: "2025-02-01T00:00:00Z",
    products,
  };
  await api.call("POST", "/contracts", contract, 201);
  await api.call("POST", "/billing-runs", { at: "2025-02-01T01:00:00Z" });
  const [invoice] = (await api.call("GET", "/invoices?limit=1")).invoices;
  if (invoice?.lineItems.length !== LINES) throw new Error(`expected one invoice of ${LINES} lines`);
  const base = `${serverUrl}/invoices/${invoice.id}`;
  let pdfBytes = 0;
  const samples = await interleavedRounds(
    {
      json: () => api.call("GET", `/invoices/${invoice.id}`),
      pdf: async () => {
        pdfBytes = (await download(`${base}/pdf`, api.token)).length;
      },
      html: () => download(`${base}/html`, api.token),
    },
    { seconds, minRounds: 10 },
    (rounds) => progress(`documents: round ${rounds}`),
  );
  const [json, pdf, html] = [summarize(samples.json), summarize(samples.pdf), summarize(samples.html)];
  return {
    lines: LINES,
    json,
    pdf,
    html,
    pdfBytes,
    pdfToJson: ratio(pdf.p50Ms, json.p50Ms),
    htmlToJson: ratio(html.p50Ms, json.p50Ms),
  };
}

/** `pnpm bench --only documents`: the section on a server of its own. */
export async function benchDocumentsAlone(options: BenchOptions): Promise<DocumentsResult> {
  const server = await startServer({});
  try {
    const api = await createBenchAccount(server.url, server.adminToken);
    return await benchDocuments(server.url, api, options.sizes.seriesSeconds);
  } finally {
    await server.stop();
  }
}
