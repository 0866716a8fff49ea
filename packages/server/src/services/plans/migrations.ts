import type { PlanMigration, PlanMigrationCreate } from "@billing/shared";
import { billingNow } from "../../billing-clock.js";
import type { ContractInMicros } from "../../domain/billing/contract.js";
import { badRequest, conflict, DomainError, notFound } from "../../domain/errors.js";
import { migrationDay } from "../../domain/plans/migration.js";
import { presentContract } from "../../presenters/contracts.js";
import type { MigrationRecord } from "../../repositories/plan-migrations.js";
import type { PlanRecord, PlanVersionRecord } from "../../repositories/plans.js";
import type { CallScope } from "../call-scope.js";
import { updateContract } from "../contracts/update.js";
import { publishChange } from "../webhook-events.js";
import { requirePlan, requireVersion } from "./catalog.js";
import { planMoveTo } from "./subscriptions.js";

/**
 * Migrations of a plan's contracts to another version (docs/decisions.md, "Plans"): each contract amended by the
 * amendment rule, in batches of MIGRATION_BATCH, the first by the request, the rest by the migration worker.
 */

/** Contracts one batch moves: what one request or one worker tick does at most for a migration. */
export const MIGRATION_BATCH = 50;

type Scope = Pick<CallScope, "repositories" | "accountId">;

/** The migration as the API answers it, with its progress. */
export async function readMigration(scope: Scope, idOrKey: string, migrationId: string): Promise<PlanMigration> {
  const plan = await requirePlan(scope, idOrKey);
  const migration = await scope.repositories.planMigrations.get(scope.accountId, migrationId);
  if (!migration || migration.planId !== plan.id) throw notFound("Migration");
  const progress = await scope.repositories.planMigrations.progress(scope.accountId, migration.id);
  const { accountId: _account, planKey: _key, cursor: _cursor, dropOverrides: _drop, ...shown } = migration;
  return { ...shown, ...progress };
}

/**
 * Moves one contract of the batch, once: the claim of `<migration>:<contract>` is inserted first, so a contract
 * another worker claimed is left to it, and one claimed by a call that stopped (still `moving`) is taken up again.
 * The move itself is a change of the contract decided by its own log (one writer per version), and checks that the
 * contract still follows the old version: however often it runs, the contract moves once. A refusal of the amendment
 * rule (a day already invoiced…) is recorded as the contract's failure with its reason; the others go on.
 */
async function migrateOne(
  call: CallScope,
  migration: MigrationRecord,
  plan: PlanRecord,
  target: PlanVersionRecord,
  contract: ContractInMicros,
) {
  const { planMigrations } = call.repositories;
  if (!(await planMigrations.claim(call.accountId, migration.id, contract.id))) {
    const item = await planMigrations.item(migration.id, contract.id);
    if (item?.outcome !== "moving") return;
  }
  try {
    const day = migrationDay(migration.effective, new Date(migration.at), contract);
    if (!day) throw conflict("The contract ends before the day the migration moves it from");
    const from =
      contract.plan && (await call.repositories.plans.version(call.accountId, plan.id, contract.plan.version));
    const move = planMoveTo(plan, target, contract, migration.dropOverrides, from || undefined);
    const by = `migration:${migration.id}`;
    const moved = await updateContract(call, contract.id, { effectiveFrom: day.toISOString() }, by, move);
    const data = presentContract(moved);
    await publishChange(call.repositories, call.accountId, call.log, { type: "contract.migrated", data });
    await planMigrations.settle(migration.id, contract.id, "moved");
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    // A concurrent move of the same contract (another worker on this batch) won its version: it is moved.
    const now = await call.repositories.contracts.get(call.accountId, contract.id);
    const there = now?.plan?.id === plan.id && now.plan.version === target.version;
    await planMigrations.settle(
      migration.id,
      contract.id,
      there ? "moved" : "failed",
      there ? undefined : error.message,
    );
  }
}

/**
 * One batch of the migration: the next MIGRATION_BATCH contracts still on its old versions, after the last batch's
 * last; true when it was the last batch (then the migration is COMPLETED).
 */
export async function runMigrationBatch(call: CallScope, migration: MigrationRecord): Promise<boolean> {
  const plan = await requirePlan(call, migration.planId);
  const target = await requireVersion(call, plan, migration.toVersion, "toVersion");
  const { contracts, last, full } = await call.repositories.contracts.planBatch(
    call.accountId,
    plan.id,
    migration.fromVersions,
    migration.cursor,
    MIGRATION_BATCH,
  );
  for (const contract of contracts) await migrateOne(call, migration, plan, target, contract);
  await call.repositories.planMigrations.advance(call.accountId, migration.id, last, !full);
  return !full;
}

/**
 * Starts a migration of the plan's contracts on `fromVersions` to `toVersion` (400 naming a version the plan lacks)
 * and runs its first batch; the migration worker carries on with the rest. `effective` is read against the account's
 * billing time now.
 */
export async function startMigration(call: CallScope, idOrKey: string, input: PlanMigrationCreate) {
  const plan = await requirePlan(call, idOrKey);
  const known = (await call.repositories.plans.versions(call.accountId, plan.id)).map(({ version }) => version);
  const { toVersion, effective, dropOverrides = false } = input;
  if (!known.includes(toVersion)) {
    throw new DomainError("NOT_FOUND", `Plan ${plan.key} has no version ${toVersion}`, [
      { path: "toVersion", message: "no such version" },
    ]);
  }
  const fromVersions = input.fromVersions === "ALL" ? known.filter((n) => n !== toVersion) : input.fromVersions;
  const wrong = fromVersions.find((n) => !known.includes(n) || n === toVersion);
  if (wrong !== undefined) {
    throw badRequest(`fromVersions lists ${wrong}: not another version of plan ${plan.key}`, [
      { path: "fromVersions", message: `${wrong} is not a version other than toVersion` },
    ]);
  }
  const total =
    fromVersions.length === 0
      ? 0
      : await call.repositories.contracts.countOnPlan(call.accountId, plan.id, fromVersions);
  const migration = await call.repositories.planMigrations.create(call.accountId, {
    planId: plan.id,
    planKey: plan.key,
    fromVersions,
    toVersion,
    effective,
    at: billingNow(call.accountId),
    dropOverrides,
    total,
  });
  if (migration.status === "RUNNING") {
    try {
      await runMigrationBatch(call, migration);
    } catch (error) {
      call.log.error({ err: error, migrationId: migration.id }, "migration batch failed; the worker carries on");
    }
  }
  return readMigration(call, plan.id, migration.id);
}
