import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestServer } from "../harness.js";
import { callProcedure } from "../procedures.js";
import { changedCollections, snapshotData } from "../stored-data.js";
import { writesTo } from "../stored-writes.js";
import { idsOf, newTenant, type Tenant, tenantOfNothing } from "../tenants.js";
import { ACCOUNTS } from "./accounts.js";
import type { Tried, TriedByRouter } from "./attempts.js";
import { CATALOG } from "./catalog.js";
import { INVOICING } from "./invoicing.js";
import { USAGE } from "./usage.js";

/**
 * One account never reaches another's data, on every procedure of the router, over REST and over tRPC. The victim
 * holds some of everything; on each procedure an intruder (a new account with data of its own) sends the victim's
 * ids, names, keys, refs and cursors. What reads or changes something by id answers the intruder exactly as for an
 * id that names nothing (404); a list shows the intruder its own data and none of the victim's; a create finds the
 * victim's unique names and keys free. A refused attempt or a read changes nothing stored (no write of the service
 * changed a document: test/support/stored-writes.ts), and nothing the victim stored has changed after each procedure,
 * document for document.
 * The procedures are split by router into groups, one file each (test/tenant-isolation.<group>.test.ts), so that no
 * file grows past ~40 s as procedures are added: every file makes its own victim and intruder (~5 s).
 */
export const TENANT_ISOLATION_GROUPS: Record<string, TriedByRouter> = {
  accounts: ACCOUNTS,
  usage: USAGE,
  invoicing: INVOICING,
  catalog: CATALOG,
};

/** Procedures not tried, and why. */
export const EXEMPT: Record<string, string> = Object.fromEntries(
  [
    "admin.createAccount",
    "admin.getAccount",
    "admin.updateAccount",
    "admin.createToken",
    "admin.listTokens",
    "admin.rotateToken",
    "admin.revokeToken",
  ].map((path) => [
    path,
    "the operator's: the admin token acts on every account by design; account tokens are refused",
  ]),
);

/** A group's procedures by their path, each router's tables merged. */
export const triedIn = (group: string): Record<string, Tried> =>
  Object.assign({}, ...Object.values(TENANT_ISOLATION_GROUPS[group]!));

/** Registers the tenant-isolation tests of one group's procedures, on a server of the file's own. */
export function tenantIsolationSuite(group: string) {
  const server = useTestServer();
  const tried = triedIn(group);
  let victim: Tenant;
  /**
   * The intruder of every procedure whose attempts change nothing of the caller's (reads, refusals): each attempt is
   * checked to have stored nothing, so one intruder serves them all. A procedure that changes its caller's data gets
   * a new intruder per transport.
   */
  let intruderOfReads: Tenant;
  beforeAll(async () => {
    // Two accounts of their own: made side by side, as nothing of one touches the other.
    [victim, intruderOfReads] = await Promise.all([newTenant(server, "victim"), newTenant(server, "intruder")]);
  });

  describe(`tenant isolation on the procedures of ${Object.keys(TENANT_ISOLATION_GROUPS[group]!).join(", ")}`, () => {
    it.each(Object.keys(tried))(
      "%s: another account's ids reach nothing; the victim's data stays",
      async (path) => {
        const { attempts, changesCaller } = tried[path]!;
        const victimBefore = await snapshotData(server.service.db, victim.accountId);
        const intruders = changesCaller
          ? await Promise.all([0, 1].map(() => newTenant(server, randomBytes(4).toString("hex"))))
          : [intruderOfReads, intruderOfReads];
        for (const [transportIndex, transport] of (["REST", "tRPC"] as const).entries()) {
          const intruder = intruders[transportIndex]!;
          const call = (input: Record<string, unknown>) =>
            callProcedure(server, transport, intruder.token, path, input);
          for (const [index, attempt] of attempts.entries()) {
            const what = `${transport} ${path}, attempt ${index + 1}`;
            const writes = writesTo(server.service.db.databaseName);
            const answer = await call(attempt.input(victim, intruder));
            for (const id of idsOf(victim)) {
              expect(JSON.stringify(answer.body), `${what} names ${id}`).not.toContain(id);
            }
            if (attempt.expect === "ownOnly") {
              expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
              await attempt.check?.(answer.body, { victim, intruder, server });
              // The write log sees what an accepted change stores (so its silence below means something).
              if (changesCaller) expect(writes.changedSince(), what).not.toEqual([]);
              continue;
            }
            expect(answer, what).toEqual(await call(attempt.input(tenantOfNothing(), intruder)));
            if (attempt.expect === "notFound")
              expect([answer.status, answer.body.code], what).toEqual([404, "NOT_FOUND"]);
            // Refused, or a read: no write of the service changed anything stored, the intruder's own data included.
            expect(writes.changedSince(), what).toEqual([]);
          }
        }
        expect(changedCollections(victimBefore, await snapshotData(server.service.db, victim.accountId))).toEqual([]);
      },
      // The billing run's check may need several calls (each up to its 3 s budget) on a loaded machine.
      60_000,
    );
  });
}
