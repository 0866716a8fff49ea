import { MAX_BACKFILL_EVENTS } from "@billing/shared";
import { describe, expect, it } from "vitest";
import { createRepositories } from "../src/repositories/index.js";
import type { BillingAccount } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import {
  getBackfill,
  marchInvoiced,
  marchTokens,
  tokens,
  tokensAccount,
  untilBackfillDone,
} from "./support/late-usage.js";

const server = useTestServer();

const post = (account: BillingAccount, path: string, body?: unknown, key?: string) =>
  server.rest("POST", path, {
    token: account.token,
    ...(body !== undefined && { body }),
    ...(key && { headers: { "Idempotency-Key": key } }),
  });
const issuesOf = (response: { body: { issues: { path: string; message: string }[] } }) =>
  response.body.issues.map(({ path, message }) => `${path}: ${message}`);

describe("Backfills as issue 45 words them: open, send events with backfillId, commit", () => {
  it("holds the events apart until the commit, then replaces Mar 10 and credits March exactly", async () => {
    const { account, contract } = await tokensAccount(server);
    const march = await marchInvoiced(account, contract.id);
    expect(march.amount).toBe(11.5); // 1,300 tokens: 1,000 × 0.01 + 300 × 0.005 = 10.00 + 1.50

    const window = { from: "2025-03-10T00:00:00Z", to: "2025-03-11T00:00:00Z" };
    const opened = await post(account, "/backfills", {
      customerId: account.customerId,
      meterKey: "tokens",
      ...window,
      mode: "REPLACE",
    });
    expect(opened.status).toBe(202);
    expect(opened.body.backfill).toMatchObject({
      status: "OPEN",
      committedAt: null,
      counts: { events: 0, replaced: 0, stored: 0 },
    });
    const id = opened.body.backfill.id;

    const batch = { backfillId: id, events: [tokens("b2", "2025-03-10T12:00:00Z", 100)] };
    expect((await post(account, "/events", batch)).body).toEqual({ stored: 1, duplicates: [] });
    // A resent batch holds nothing twice.
    expect((await post(account, "/events", batch)).body).toEqual({ stored: 0, duplicates: ["b2"] });
    // Outside the window, or of no backfill: 400 naming the field, nothing held.
    const outside = await post(account, "/events", {
      backfillId: id,
      events: [tokens("late", "2025-03-11T00:00:00Z", 7)],
    });
    expect(outside.status).toBe(400);
    expect(issuesOf(outside)).toEqual(["events.0.timestamp: is outside [from, to)"]);
    const nobody = await post(account, "/events", { ...batch, backfillId: "0123456789abcdef01234567" });
    expect(issuesOf(nobody)).toEqual(["backfillId: names no backfill"]);

    // Held apart: no usage read counts b2, no step of the worker applies an OPEN backfill.
    await server.service.upkeep.tick();
    expect(await marchTokens(server, account)).toBe(1300);
    expect(await getBackfill(server, account, id)).toMatchObject({ status: "OPEN", counts: { events: 1, stored: 0 } });
    expect((await post(account, `/backfills/${id}/revert`)).status).toBe(409);

    const committed = await post(account, `/backfills/${id}/commit`, undefined, "commit-1");
    expect(committed.status).toBe(202);
    expect(committed.body.backfill).toMatchObject({
      status: "PENDING",
      committedAt: expect.any(String),
      counts: { events: 1 },
    });
    // Keyed: the retry replays; another commit, or events sent to it now, are 409 naming its status.
    expect((await post(account, `/backfills/${id}/commit`, undefined, "commit-1")).status).toBe(202);
    const again = await post(account, `/backfills/${id}/commit`, undefined, "commit-2");
    expect([again.status, issuesOf(again)]).toEqual([409, ["backfillId: is PENDING"]]);
    const tooLate = await post(account, "/events", batch);
    expect([tooLate.status, issuesOf(tooLate)]).toEqual([409, ["backfillId: is PENDING"]]);

    const done = await untilBackfillDone(server, account, id);
    expect(done).toMatchObject({ status: "COMPLETED", counts: { events: 1, replaced: 2, stored: 1, duplicates: 0 } });
    expect(await marchTokens(server, account)).toBe(700); // b and c voided: 500 + 100 (b2) + 100 (d)

    // March priced again: 700 × 0.01 = 7.00 against 11.50 charged → a credit note of 4.50, as when sent whole.
    await account.run("2025-05-01T00:00:00Z");
    const notes = (await server.rest("GET", `/credit-notes?invoiceId=${march.id}&limit=100`, { token: account.token }))
      .body.creditNotes;
    expect(notes).toEqual([expect.objectContaining({ amount: 4.5, reason: "USAGE_CORRECTION", refund: "OFFSET" })]);
  }, 60_000);

  it(`holds at most ${MAX_BACKFILL_EVENTS} events: past them 409; a resent full batch is duplicates`, async () => {
    const { account } = await tokensAccount(server);
    const opened = await post(account, "/backfills", {
      meterKey: "tokens",
      from: "2025-03-01T00:00:00Z",
      to: "2025-04-01T00:00:00Z",
      mode: "ADD",
    });
    const backfillId = opened.body.backfill.id;
    const events = Array.from({ length: MAX_BACKFILL_EVENTS }, (_, index) =>
      tokens(`e${index}`, "2025-03-02T10:00:00Z", 1),
    );
    expect((await post(account, "/events", { backfillId, events })).body.stored).toBe(MAX_BACKFILL_EVENTS);
    const resent = await post(account, "/events", { backfillId, events });
    expect([resent.status, resent.body.stored, resent.body.duplicates.length]).toEqual([200, 0, MAX_BACKFILL_EVENTS]);
    const past = await post(account, "/events", {
      backfillId,
      events: [tokens("one-more", "2025-03-02T10:00:00Z", 1)],
    });
    expect([past.status, issuesOf(past)]).toEqual([
      409,
      [`events: would take the backfill past ${MAX_BACKFILL_EVENTS} events (${MAX_BACKFILL_EVENTS} held)`],
    ]);

    // A call that claimed the commit and died before marking the backfill: the next call marks it (the claim's
    // committedAt), and is refused.
    const repositories = createRepositories(server.service.db);
    const stored = await repositories.backfills.get(account.accountId, backfillId);
    if (!stored) throw new Error("stored");
    expect(await repositories.backfills.claimCommit(stored, new Date("2026-01-01T00:00:00Z"))).toBe(true);
    const refused = await post(account, `/backfills/${backfillId}/commit`);
    expect([refused.status, issuesOf(refused)]).toEqual([409, ["backfillId: is PENDING"]]);
    expect(await getBackfill(server, account, backfillId)).toMatchObject({
      status: "PENDING",
      committedAt: "2026-01-01T00:00:00.000Z",
      counts: { events: MAX_BACKFILL_EVENTS, stored: 0 },
    });
  }, 60_000);

  it("a batch sent while a commit is under way is in the commit, or told which of its events are not", async () => {
    const { account } = await tokensAccount(server);
    const open = async () => {
      const body = { meterKey: "tokens", from: "2025-03-01T00:00:00Z", to: "2025-04-01T00:00:00Z", mode: "ADD" };
      const id = (await post(account, "/backfills", body)).body.backfill.id as string;
      const stored = await repositories.backfills.get(account.accountId, id);
      if (!stored) throw new Error("stored");
      return { id, stored };
    };
    const repositories = createRepositories(server.service.db);
    const committedAt = new Date("2026-01-01T00:00:00Z");

    // A commit claimed, its events not read yet (its call is between the two): the batch finishes the commit itself,
    // which reads what is held after the claim, this batch included.
    const first = await open();
    expect(
      (await post(account, "/events", { backfillId: first.id, events: [tokens("x1", "2025-03-02T10:00:00Z", 5)] }))
        .status,
    ).toBe(200);
    expect(await repositories.backfills.claimCommit(first.stored, committedAt)).toBe(true);
    const during = { backfillId: first.id, events: [tokens("x2", "2025-03-02T11:00:00Z", 7)] };
    expect((await post(account, "/events", during)).body).toEqual({ stored: 1, duplicates: [] });
    expect(await getBackfill(server, account, first.id)).toMatchObject({ status: "PENDING", counts: { events: 2 } });

    // A commit whose events were read before this batch was held: 409 naming the events left out of it.
    const second = await open();
    expect(await repositories.backfills.claimCommit(second.stored, committedAt)).toBe(true);
    expect(await repositories.backfills.commitEvents(second.stored, committedAt, [])).toEqual([]);
    const late = { backfillId: second.id, events: [tokens("y1", "2025-03-02T10:00:00Z", 3)] };
    const refused = await post(account, "/events", late);
    expect([refused.status, issuesOf(refused)]).toEqual([
      409,
      ["backfillId: was committed without y1: send them to another backfill"],
    ]);
    expect(await getBackfill(server, account, second.id)).toMatchObject({ status: "PENDING", counts: { events: 0 } });
  });
});
