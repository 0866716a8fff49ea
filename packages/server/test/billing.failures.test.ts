import { TRPCError } from "@trpc/server";
import { MongoServerError } from "mongodb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { conflict } from "../src/domain/errors.js";
import { createLogger } from "../src/logger.js";
import type { Hooks } from "../src/repositories/hooks.js";
import { createRepositories } from "../src/repositories/index.js";
import { runBilling } from "../src/services/billing/run.js";
import { type BillingAccount, billingAccount, committed, day } from "./support/billing.js";
import { startTestServer, type TestServer } from "./support/server.js";

/** What a run says of an invoice it could not make for a fault of ours (docs/decisions.md, "Billing engine"). */
const GENERIC_MESSAGE = "The invoice could not be made because of an internal error; the server log has the cause";

/** The next invoice insert of a contract throws this error, as a failing database would. */
const faults = new Map<string, Error>();
const hooks: Hooks = async (point, subject) => {
  const fault = point === "invoices.insert" ? faults.get(subject) : undefined;
  faults.delete(subject);
  if (fault) throw fault;
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ hooks });
});
afterAll(() => server.close());

/** The account of each contract failuresOf made. */
const accounts = new Map<string, BillingAccount>();

const failuresOf = async (fault: Error) => {
  const account = await billingAccount(server);
  const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 100)] });
  accounts.set(contract.id, account);
  faults.set(contract.id, fault);
  const run = await account.run("2024-02-01T00:00:00Z");
  expect(run.invoicesCreated).toBe(0);
  return { contractId: contract.id, failures: run.failures };
};

const januaryOf = (contractId: string, message: string) => ({
  contractId,
  billingCycle: { startTime: day("2024-01-01"), endTime: day("2024-02-01") },
  message,
});

it.each([
  [
    "a driver error",
    new MongoServerError({
      message: "connection 7 to 10.0.0.5:27017 closed writing billing.invoices",
      code: 6,
      codeName: "HostUnreachable",
    }),
  ],
  // The shape the service's own errors had before DomainError: a library's error is internal all the same.
  ["a tRPC error", new TRPCError({ code: "CONFLICT", message: "E11000 duplicate key error: billing.invoices" })],
  ["a plain Error", new RangeError("invariant broken at seq 42")],
])("a run's failure never carries an internal message: %s becomes the generic one", async (_, fault) => {
  const { contractId, failures } = await failuresOf(fault);
  expect(failures).toEqual([januaryOf(contractId, GENERIC_MESSAGE)]);
});

it("a DomainError's message is the caller's to read: it is the failure's message", async () => {
  const { contractId, failures } = await failuresOf(conflict("The invoice is outside the service's limits"));
  expect(failures).toEqual([januaryOf(contractId, "The invoice is outside the service's limits")]);
});

it("a contract reads Error while a cycle failed to bill, its own status again once a retry bills it", async () => {
  const { contractId, failures } = await failuresOf(new RangeError("disk full"));
  expect(failures).toHaveLength(1);
  const { token, accountId } = accounts.get(contractId)!;
  const read = async () => (await server.rest("GET", `/contracts/${contractId}`, { token })).body.contract.status;
  expect(await read()).toBe("Error");
  expect((await server.rest("GET", "/contracts", { token })).body.contracts).toEqual([
    expect.objectContaining({ id: contractId, status: "Error" }),
  ]);
  // Runs retry a failure an hour later: a run whose clock says two hours later bills it, which clears it.
  const later = new Date(Date.now() + 2 * 60 * 60_000);
  const repositories = createRepositories(server.service.db);
  const retried = await runBilling(repositories, accountId, new Date("2024-02-01T00:00:00Z"), createLogger("silent"), {
    graceMs: 0,
    draftMs: 0,
    now: later,
  });
  expect(retried.invoicesCreated).toBe(1);
  expect(await read()).toBe("Active");
});
