import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { billingAccount, committed } from "./support/billing.js";
import { useOpenApiDocument, useTestServer } from "./support/harness.js";
import { pdfLines } from "./support/pdf-text.js";
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
    const lines = await pdfLines(answer.bytes);
    expect(lines).toEqual(
      expect.arrayContaining([
        "CN-000001",
        "Credited & Co",
        "Credit note CN-000001",
        `Issue date ${creditNote.createdAt.slice(0, 10)}`,
        "Invoice INV-000001",
        "Reason Duplicate charge",
        "Credit on invoice INV-000001 12.34",
        "Total credited 12.34",
        "CREDIT NOTE CN-000001 · page 1 of 1",
      ]),
    );
  });

  it("is authenticated and scoped to the account: another account's credit note, or none, is a 404", async () => {
    const { account, creditNote } = await creditedInvoice();
    const stranger = await server.newAccount();
    const path = `/credit-notes/${creditNote.id}/pdf`;
    const other = await download(path, stranger.token);
    expectError({ status: other.status, body: jsonOf(other.bytes) }, 404, "NOT_FOUND");
    const unknown = await download(`/credit-notes/${newId()}/pdf`, account.token);
    expectError({ status: unknown.status, body: jsonOf(unknown.bytes) }, 404, "NOT_FOUND");
    const anonymous = await download(path);
    expectError({ status: anonymous.status, body: jsonOf(anonymous.bytes) }, 401, "UNAUTHORIZED");
    expectError(await server.rest("POST", path, { token: account.token }), 405, "METHOD_NOT_SUPPORTED");
    // A credit note has no HTML page: the path is no route at all.
    expect((await download(`/credit-notes/${creditNote.id}/html`, account.token)).status).toBe(404);
    const tooLong = await download(`/credit-notes/${"x".repeat(201)}/pdf`, account.token);
    expect(jsonOf(tooLong.bytes)).toMatchObject({ code: "BAD_REQUEST", issues: [{ path: "creditNoteId" }] });
  });

  it("answers a read token too: a download changes nothing", async () => {
    const { account, creditNote } = await creditedInvoice();
    const created = await server.rest("POST", `/admin/accounts/${account.accountId}/tokens`, {
      token: ADMIN_TOKEN,
      body: { scope: "read" },
    });
    expect((await download(`/credit-notes/${creditNote.id}/pdf`, created.body.token)).status).toBe(200);
  });

  it("is in the OpenAPI document under credit-notes, with the errors of GET /credit-notes/{creditNoteId}", () => {
    const operation = document.paths["/credit-notes/{creditNoteId}/pdf"].get;
    const resource = document.paths["/credit-notes/{creditNoteId}"].get;
    expect(operation.tags).toEqual(["credit-notes"]);
    expect(operation.security).toEqual([{ bearerAuth: [] }]);
    expect(operation.parameters.map(({ name, in: where }: any) => [name, where])).toEqual([["creditNoteId", "path"]]);
    expect(Object.keys(operation.responses["200"].content)).toEqual(["application/pdf"]);
    const { "200": _, ...errors } = resource.responses;
    expect(Object.keys(errors).length).toBeGreaterThan(0);
    expect(operation.responses).toMatchObject(errors);
    expect(document.paths["/credit-notes/{creditNoteId}/html"]).toBeUndefined();
  });
});
