import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { billingAccount, committed, TIERED_PACKAGED_FLAT } from "./support/billing.js";
import { useOpenApiDocument, useTestServer } from "./support/harness.js";
import { expectPdfRows } from "./support/pdf-text.js";
import { ADMIN_TOKEN, newId } from "./support/server.js";

const server = useTestServer();
const document = useOpenApiDocument(server);

/** A GET answered as bytes (the harness's `rest` reads text). */
async function download(path: string, token?: string) {
  const response = await fetch(server.url + path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
}
const jsonOf = (bytes: Uint8Array) => JSON.parse(Buffer.from(bytes).toString("utf8"));

/**
 * A document route answers its owner only: `path` (the document) is a 404 to another account and 401 without a token,
 * `unknownPath` (the same route, an id of nothing) a 404, and POST a 405.
 */
async function expectOwnersOnly(owner: { token: string }, path: string, unknownPath: string) {
  const stranger = await server.newAccount();
  const other = await download(path, stranger.token);
  expectError({ status: other.status, body: jsonOf(other.bytes) }, 404, "NOT_FOUND");
  const unknown = await download(unknownPath, owner.token);
  expectError({ status: unknown.status, body: jsonOf(unknown.bytes) }, 404, "NOT_FOUND");
  const anonymous = await download(path);
  expectError({ status: anonymous.status, body: jsonOf(anonymous.bytes) }, 401, "UNAUTHORIZED");
  expectError(await server.rest("POST", path, { token: owner.token }), 405, "METHOD_NOT_SUPPORTED");
}

/** A read-scoped token of the account. */
const readToken = async (accountId: string): Promise<string> =>
  (await server.rest("POST", `/admin/accounts/${accountId}/tokens`, { token: ADMIN_TOKEN, body: { scope: "read" } }))
    .body.token;

const BUYER = {
  name: "Acme <script>alert(1)</script> & Sons",
  taxId: "FR12345678901",
  address: { addressText: "42 Rue de Rivoli", postalCode: "75001", city: "Paris", country: "France" },
};
const SELLER = {
  legalName: "Meter Works Ltd",
  taxId: "GB123456789",
  email: "billing@meter.example",
  address: { addressText: "1 High Street", postalCode: "EC1A 1BB", city: "London", country: "UK" },
};

/**
 * One invoice from a billing run over January 2024, worked out by hand:
 * - API calls, GRADUATED on 1500 units: 1000 × 0.01 = 10.00, then 500 × 0.005 + 2.00 = 4.50 → 14.50;
 * - Storage, PACKAGE on 25 GB in packages of 10 at 5.00: ⌈2.5⌉ = 3 packages → 15.00;
 * - Platform, FLAT 49.99 → 49.99;
 * subtotal and total 14.50 + 15.00 + 49.99 = 79.49; nothing paid or credited, so 79.49 due.
 */
async function billedInvoice() {
  const account = await billingAccount(server, BUYER);
  const patched = await server.rest("PATCH", `/admin/accounts/${account.accountId}`, {
    token: ADMIN_TOKEN,
    body: SELLER,
  });
  expect(patched.status).toBe(200);
  await account.measure("calls", "2024-01-10", 1500);
  await account.measure("gb", "2024-01-20", 25);
  const contract = await account.contract({
    startDate: "2024-01-01T00:00:00Z",
    endDate: "2024-02-01T00:00:00Z",
    products: TIERED_PACKAGED_FLAT,
  });
  await account.run("2024-02-01T00:00:00Z");
  const [invoice] = await account.invoices(contract.id);
  expect(invoice.revenueBreakdown.total).toBe(79.49);
  expect(invoice.finalizedAt).toBe("2024-02-01T00:00:00.000Z");
  expect(invoice.finalizedAt <= invoice.dueDate).toBe(true);
  return { account, invoice };
}

describe("GET /invoices/{invoiceId}/pdf", () => {
  it("is the invoice's PDF: number, seller, buyer, dates, each line and the totals, worked out by hand", async () => {
    const { account, invoice } = await billedInvoice();
    const answer = await download(`/invoices/${invoice.id}/pdf`, account.token);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/pdf");
    expect(answer.headers.get("content-disposition")).toBe('attachment; filename="INV-000001.pdf"');
    expect(Buffer.from(answer.bytes.subarray(0, 5)).toString()).toBe("%PDF-");
    await expectPdfRows(answer.bytes, [
      "INVOICE",
      "INV-000001",
      "Meter Works Ltd",
      "EC1A 1BB London",
      "Tax ID: GB123456789",
      "billing@meter.example",
      "Acme <script>alert(1)</script> & Sons",
      "75001 Paris",
      "Tax ID: FR12345678901",
      "Invoice number INV-000001",
      // Finalized by the run at Feb 1 2024 (a backfill today): issued then, not on the server's clock.
      "Issue date 2024-02-01",
      `Due date ${invoice.dueDate.slice(0, 10)}`,
      "Billing cycle 2024-01-01 to 2024-02-01",
      "API calls 1500 14.50",
      "Tier up to 1000: 1000 × 0.01 + 0.00 = 10.00",
      "Tier above: 500 × 0.005 + 2.00 = 4.50",
      "Storage 25 15.00",
      "3 packages of 10 at 5.00",
      "Platform 1 49.99 49.99",
      "Subtotal 79.49",
      "Total 79.49",
      "Amount paid 0.00",
      "Amount credited 0.00",
      "Amount due 79.49",
    ]);
  });

  it("is authenticated and scoped to the account: another account's invoice, or none, is a 404", async () => {
    const { account, invoice } = await billedInvoice();
    for (const format of ["pdf", "html"])
      await expectOwnersOnly(account, `/invoices/${invoice.id}/${format}`, `/invoices/${newId()}/${format}`);
    const tooLong = await download(`/invoices/${"x".repeat(201)}/pdf`, account.token);
    expect(jsonOf(tooLong.bytes)).toMatchObject({ code: "BAD_REQUEST", issues: [{ path: "invoiceId" }] });
  });

  it("answers a read token too: a download changes nothing", async () => {
    const { account, invoice } = await billedInvoice();
    expect((await download(`/invoices/${invoice.id}/pdf`, await readToken(account.accountId))).status).toBe(200);
  });
});

describe("GET /invoices/{invoiceId}/html", () => {
  it("has the PDF's content, every value escaped, and may run no script", async () => {
    const { account, invoice } = await billedInvoice();
    const answer = await server.rest("GET", `/invoices/${invoice.id}/html`, { token: account.token });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(answer.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html: string = answer.body;
    expect(html).not.toContain("<script>");
    expect(html).toContain("Acme &lt;script&gt;alert(1)&lt;/script&gt; &amp; Sons");
    expect(html).toContain('<p class="number">INV-000001</p>');
    expect(html).toContain(">Tier above: 500 × 0.005 + 2.00 = 4.50<");
    expect(html).toContain('<td class="figure">1</td><td class="figure">49.99</td><td class="figure">49.99</td>');
    expect(html).toContain('<tr class="emphasis"><td>Total</td><td>79.49</td></tr>');
    expect(html).toContain('<tr class="emphasis"><td>Amount due</td><td>79.49</td></tr>');
  });
});

describe("the OpenAPI document", () => {
  it("lists both documents under invoices, with their media types, security and errors", () => {
    for (const [format, mediaType] of [
      ["pdf", "application/pdf"],
      ["html", "text/html; charset=utf-8"],
    ] as const) {
      const operation = document.paths[`/invoices/{invoiceId}/${format}`].get;
      expect(operation.tags).toEqual(["invoices"]);
      expect(operation.security).toEqual([{ bearerAuth: [] }]);
      expect(operation.parameters.map(({ name, in: where }: any) => [name, where])).toEqual([["invoiceId", "path"]]);
      expect(Object.keys(operation.responses["200"].content)).toEqual([mediaType]);
      expect(operation.responses).toHaveProperty("404");
    }
    // Bytes, as generators read a binary answer (a Python client returns it as a File: scripts/python-client.sh).
    expect(document.paths["/invoices/{invoiceId}/pdf"].get.responses["200"].content["application/pdf"]).toEqual({
      schema: { type: "string", format: "binary" },
    });
  });
});

/**
 * January 2024 of 3 seats at 33.33: one FINALIZED invoice of 3 × 33.33 = 99.99, paid in full, then a CREDITS note
 * of 12.34 (at most the 99.99 paid).
 */
async function creditedInvoice() {
  const account = await billingAccount(server, { name: "Credited & Co" });
  const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(3, 33.33)] });
  await account.run("2024-02-01T00:00:00Z");
  const [invoice] = await account.invoices(contract.id);
  expect(invoice.revenueBreakdown.total).toBe(99.99);
  await account.post(`/invoices/${invoice.id}/payments`, { amount: 99.99 }, 201);
  const { creditNote } = await account.post(
    "/credit-notes",
    { invoiceId: invoice.id, amount: 12.34, reason: "DUPLICATE", refund: "CREDITS" },
    201,
  );
  return { account, invoice, creditNote };
}

describe("GET /credit-notes/{creditNoteId}/pdf", () => {
  it("is the credit note's PDF: its number, the invoice's number, the buyer and the amount credited", async () => {
    const { account, invoice, creditNote } = await creditedInvoice();
    const answer = await download(`/credit-notes/${creditNote.id}/pdf`, account.token);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/pdf");
    expect(answer.headers.get("content-disposition")).toBe('attachment; filename="CN-000001.pdf"');
    expect(Buffer.from(answer.bytes.subarray(0, 5)).toString()).toBe("%PDF-");
    expect(invoice.number).toBe("INV-000001");
    await expectPdfRows(answer.bytes, [
      "CN-000001",
      "Credited & Co",
      "Credit note CN-000001",
      `Issue date ${creditNote.createdAt.slice(0, 10)}`,
      "Invoice INV-000001",
      "Reason Duplicate charge",
      "Credit on invoice INV-000001 12.34",
      "Total credited 12.34",
      "CREDIT NOTE CN-000001 · page 1 of 1",
    ]);
  });

  it("is authenticated and scoped to the account: another account's credit note, or none, is a 404", async () => {
    const { account, creditNote } = await creditedInvoice();
    await expectOwnersOnly(account, `/credit-notes/${creditNote.id}/pdf`, `/credit-notes/${newId()}/pdf`);
    // A credit note has no HTML page: the path is no route at all.
    expect((await download(`/credit-notes/${creditNote.id}/html`, account.token)).status).toBe(404);
    const tooLong = await download(`/credit-notes/${"x".repeat(201)}/pdf`, account.token);
    expect(jsonOf(tooLong.bytes)).toMatchObject({ code: "BAD_REQUEST", issues: [{ path: "creditNoteId" }] });
  });

  it("answers a read token too: a download changes nothing", async () => {
    const { account, creditNote } = await creditedInvoice();
    const token = await readToken(account.accountId);
    expect((await download(`/credit-notes/${creditNote.id}/pdf`, token)).status).toBe(200);
  });

  it("is in the OpenAPI document under credit-notes, with the errors of GET /credit-notes/{creditNoteId}", () => {
    const operation = document.paths["/credit-notes/{creditNoteId}/pdf"].get;
    const resource = document.paths["/credit-notes/{creditNoteId}"].get;
    expect(operation.tags).toEqual(["credit-notes"]);
    expect(operation.security).toEqual([{ bearerAuth: [] }]);
    expect(operation.parameters.map(({ name, in: where }: any) => [name, where])).toEqual([["creditNoteId", "path"]]);
    expect(operation.responses["200"].content).toEqual({
      "application/pdf": { schema: { type: "string", format: "binary" } },
    });
    const { "200": _, ...errors } = resource.responses;
    expect(Object.keys(errors).length).toBeGreaterThan(0);
    expect(operation.responses).toMatchObject(errors);
    expect(document.paths["/credit-notes/{creditNoteId}/html"]).toBeUndefined();
  });
});
