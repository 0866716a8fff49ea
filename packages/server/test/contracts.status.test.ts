import type { Contract, ContractStatus } from "@billing/shared";
import { describe, expect, it } from "vitest";
import { contractAsOf, nextTimedChangeAt, termEnd } from "../src/domain/contracts/lifecycle.js";
import { lifecycleEventsOf } from "../src/domain/contracts/lifecycle-events.js";
import { pausedDays } from "../src/domain/contracts/pauses.js";
import {
  assertTransition,
  mayBecome,
  shownStatus,
  statusByTime,
  statusOnDeletion,
} from "../src/domain/contracts/status.js";
import { DomainError } from "../src/domain/errors.js";
import { STORED_CONTRACT } from "./support/fixtures.js";

/** The pure rules of a contract's lifecycle (docs/decisions.md, "Contract lifecycle"). */

const contract = (fields: Partial<Contract>): Contract => ({ ...STORED_CONTRACT, ...fields });

describe("the status machine (assertTransition)", () => {
  it("allows the documented transitions and nothing out of a final status", () => {
    const allowed: [ContractStatus, ContractStatus][] = [
      ["InReview", "Active"],
      ["InReview", "Terminated"],
      ["Active", "Inactive"],
      ["Inactive", "Active"],
      ["Active", "PendingTermination"],
      ["PendingTermination", "Terminated"],
      ["Active", "Expired"],
    ];
    for (const [from, to] of allowed) expect(mayBecome(from, to)).toBe(true);
    const refused: [ContractStatus, ContractStatus][] = [
      ["InReview", "Inactive"],
      ["Active", "Active"],
      ["Inactive", "Inactive"],
      ["PendingTermination", "PendingTermination"],
      ["Terminated", "Active"],
      ["Expired", "Active"],
      ["Expired", "Terminated"],
    ];
    for (const [from, to] of refused) expect(mayBecome(from, to)).toBe(false);
  });

  it("refuses with a 409 naming the current and the wanted status", () => {
    let thrown: unknown;
    try {
      assertTransition("Terminated", "Active");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    expect(thrown).toMatchObject({ code: "CONFLICT", issues: [{ path: "status" }] });
    expect((thrown as Error).message).toContain("Terminated");
    expect((thrown as Error).message).toContain("Active");
  });
});

describe("the machine's other columns", () => {
  const statuses: ContractStatus[] = [
    "InReview",
    "Active",
    "Inactive",
    "PendingTermination",
    "Error",
    "Terminated",
    "Expired",
  ];

  it("lets time make only transitions the machine allows", () => {
    for (const status of statuses) {
      for (const moment of ["atTermination", "atEnd"] as const) {
        const next = statusByTime(status, moment);
        if (next) expect(mayBecome(status, next)).toBe(true);
      }
    }
    expect(statusByTime("PendingTermination", "atTermination")).toBe("Terminated");
    expect(statusByTime("Active", "atTermination")).toBeUndefined();
    expect(statusByTime("InReview", "atEnd")).toBeUndefined();
  });

  it("ends a deleted contract Terminated where the machine allows it; a final one keeps its status", () => {
    for (const status of ["InReview", "Active", "Inactive", "PendingTermination"] as const)
      expect(statusOnDeletion(status)).toBe("Terminated");
    expect(statusOnDeletion("Expired")).toBe("Expired");
    expect(statusOnDeletion("Terminated")).toBe("Terminated");
  });

  it("declares the event of each change: its new status's for a transition, each type once", () => {
    expect(
      lifecycleEventsOf([
        { kind: "renewal" },
        { kind: "transition", to: "Expired" },
        { kind: "transition", to: "Inactive" },
        { kind: "amendment" },
        { kind: "transition", to: "Terminated" },
        { kind: "deletion" },
        { kind: "renewal" },
      ]),
    ).toEqual(["contract.renewed", "contract.expired", "contract.updated", "contract.terminated", "contract.deleted"]);
  });
});

describe("time's changes (contractAsOf)", () => {
  const quarter = { startDate: "2024-01-15T00:00:00.000Z", endDate: "2024-04-15T00:00:00.000Z" };

  it("renews a 3-month term twice, counting and recording each renewal with its dates", () => {
    const { contract: renewed, changes } = contractAsOf(contract(quarter), new Date("2024-09-01T00:00:00Z"));
    // Jan 15 + 3 months = Apr 15 (term 1); renewed at Apr 15 to Jul 15, then at Jul 15 to Oct 15.
    expect(renewed).toMatchObject({ status: "Active", renewals: 2, endDate: "2024-10-15T00:00:00.000Z" });
    expect(changes).toEqual([
      { at: new Date("2024-04-15T00:00:00Z"), kind: "renewal", endDate: new Date("2024-07-15T00:00:00Z") },
      { at: new Date("2024-07-15T00:00:00Z"), kind: "renewal", endDate: new Date("2024-10-15T00:00:00Z") },
    ]);
    // Read again from the stored result, the term is still 3 months: nothing more is due, then Jan 15.
    expect(contractAsOf(renewed, new Date("2024-09-01T00:00:00Z")).changes).toEqual([]);
    expect(termEnd(renewed, renewed.renewals + 2)).toEqual(new Date("2025-01-15T00:00:00Z"));
  });

  it("keeps months anchored to the start: a term from Jan 31 renews to Apr 30, then Jul 31", () => {
    const endOfMonth = contract({ startDate: "2024-01-31T00:00:00.000Z", endDate: "2024-04-30T00:00:00.000Z" });
    expect(termEnd(endOfMonth, 2)).toEqual(new Date("2024-07-31T00:00:00Z"));
  });

  it("renews a term that is no whole number of months by its length in days", () => {
    const tenDays = contract({ startDate: "2024-01-15T00:00:00.000Z", endDate: "2024-01-25T00:00:00.000Z" });
    expect(contractAsOf(tenDays, new Date("2024-01-30T00:00:00Z")).contract).toMatchObject({
      renewals: 1,
      endDate: "2024-02-04T00:00:00.000Z",
    });
  });

  it("expires at its end without autoRenewContract, and a term entered after its end", () => {
    const expiring = contract({ ...quarter, autoRenewContract: false });
    expect(contractAsOf(expiring, new Date("2024-04-14T23:59:59Z")).contract.status).toBe("Active");
    expect(contractAsOf(expiring, new Date("2024-04-15T00:00:00Z"))).toEqual({
      contract: { ...expiring, status: "Expired" },
      changes: [{ at: new Date("2024-04-15T00:00:00Z"), kind: "transition", from: "Active", to: "Expired" }],
    });
    const backfilled = contract({ ...quarter, createdAt: "2024-06-01T00:00:00.000Z" });
    expect(contractAsOf(backfilled, new Date("2024-06-01T00:00:00Z")).contract).toMatchObject({
      status: "Expired",
      renewals: 0,
    });
  });

  it("never expires an open-ended contract, and leaves InReview and final ones as they are", () => {
    const now = new Date("2090-01-01T00:00:00Z");
    expect(contractAsOf(contract({}), now).changes).toEqual([]);
    expect(contractAsOf(contract({ ...quarter, status: "InReview" }), now).changes).toEqual([]);
    expect(contractAsOf(contract({ ...quarter, status: "Terminated" }), now).changes).toEqual([]);
  });

  it("terminates a PendingTermination at its `at`, unless the term ended first without renewal", () => {
    const pending = contract({ status: "PendingTermination", terminationAt: "2024-03-10T12:00:00.000Z" });
    expect(contractAsOf(pending, new Date("2024-03-10T11:59:59Z")).contract.status).toBe("PendingTermination");
    expect(contractAsOf(pending, new Date("2024-03-10T12:00:00Z")).changes).toEqual([
      { at: new Date("2024-03-10T12:00:00Z"), kind: "transition", from: "PendingTermination", to: "Terminated" },
    ]);
    const afterEnd = contract({
      ...quarter,
      autoRenewContract: false,
      status: "PendingTermination",
      terminationAt: "2024-05-01T00:00:00.000Z",
    });
    expect(contractAsOf(afterEnd, new Date("2024-06-01T00:00:00Z")).contract.status).toBe("Expired");
    expect(nextTimedChangeAt(afterEnd)).toEqual(new Date("2024-04-15T00:00:00Z"));
  });
});

describe("paused days (pausedDays)", () => {
  it("counts the UTC days of a range inside pauses, an open pause running on", () => {
    const periods = [
      { from: "2024-04-11T00:00:00.000Z", to: "2024-04-21T00:00:00.000Z" },
      { from: "2024-04-28T00:00:00.000Z" },
    ];
    // Apr 11..20 (10 days) and Apr 28..30 (3 days) of April.
    expect(pausedDays(periods, new Date("2024-04-01T00:00:00Z"), new Date("2024-05-01T00:00:00Z"))).toBe(13);
    expect(pausedDays(undefined, new Date("2024-04-01T00:00:00Z"), new Date("2024-05-01T00:00:00Z"))).toBe(0);
  });
});

describe("the status a read shows (shownStatus)", () => {
  it("is Error while a cycle failed to bill, for a billed status that is not final", () => {
    expect(shownStatus("Active", true)).toBe("Error");
    expect(shownStatus("PendingTermination", true)).toBe("Error");
    expect(shownStatus("Active", false)).toBe("Active");
    expect(shownStatus("Expired", true)).toBe("Expired");
    expect(shownStatus("Terminated", true)).toBe("Terminated");
  });
});
