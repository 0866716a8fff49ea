import type { Entitlement } from "@billing/shared";
import { billingNow } from "../billing-clock.js";
import { utcMonthOf } from "../domain/alerts/periods.js";
import { entitlementOf } from "../domain/entitlements.js";
import { notFound } from "../domain/errors.js";
import { unitsOf } from "../presenters/money.js";
import type { Repositories } from "../repositories/index.js";
import type { CallScope } from "./call-scope.js";
import { type CustomerTerms, customerTerms, usageMicrosOf } from "./meter-terms.js";

const units = (micros: bigint | null) => (micros === null ? null : unitsOf(micros));

/**
 * A customer's entitlement to a meter now: the usage of the current cycle of the contract item that names the meter,
 * counted as billing counts it against the item's commitment (a group's meters summed), and that commitment's units
 * as the limit. No contract in force names the meter: unlimited, over the UTC month.
 */
async function entitlementNow(
  repositories: Repositories,
  accountId: string,
  customerId: string,
  terms: CustomerTerms,
  meterKey: string,
  now: Date,
): Promise<Entitlement> {
  const found = await terms.of(meterKey, now);
  const period = found?.cycle ?? utcMonthOf(now);
  const usageMicros = await usageMicrosOf(repositories, accountId, customerId, found?.meters ?? [meterKey], period);
  const entitlement = entitlementOf(found?.commitment, usageMicros);
  return {
    meterKey,
    hasAccess: entitlement.hasAccess,
    usage: unitsOf(usageMicros),
    limit: units(entitlement.limitMicros),
    remaining: units(entitlement.remainingMicros),
    periodStart: period.start.toISOString(),
    periodEnd: period.end.toISOString(),
  };
}

/** The customer's service id (404 when the account has no such customer, by id or externalId). */
async function customerIdOf(repositories: Repositories, accountId: string, idOrExternalId: string) {
  const customerId = await repositories.customers.idOf(accountId, idOrExternalId);
  if (customerId === undefined) throw notFound("Customer");
  return customerId;
}

/** One meter's entitlement: 404 when the account has no such customer or no meter of that key. */
export async function entitlementOfMeter(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  idOrExternalId: string,
  meterKey: string,
): Promise<Entitlement> {
  const customerId = await customerIdOf(repositories, accountId, idOrExternalId);
  const meter = await repositories.meters.getByKey(accountId, meterKey);
  if (!meter) throw notFound("Meter");
  const terms = customerTerms(repositories, accountId, customerId);
  return entitlementNow(repositories, accountId, customerId, terms, meter.key, billingNow(accountId));
}

/**
 * The entitlements of every meter the customer's contracts in force name (bounded by those contracts' products),
 * in the contracts' order; meters named by no contract are unlimited and not listed (ask for one by key).
 */
export async function entitlementsOf(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  idOrExternalId: string,
): Promise<Entitlement[]> {
  const customerId = await customerIdOf(repositories, accountId, idOrExternalId);
  const now = billingNow(accountId);
  const terms = customerTerms(repositories, accountId, customerId);
  const contracts = await terms.contracts;
  const named = contracts.flatMap((contract) => [
    ...(contract.products ?? []).map((product) => product.catalogProductId),
    ...(contract.productGroups ?? []).flatMap((group) => group.products.map((product) => product.catalogProductId)),
  ]);
  const entitlements: Entitlement[] = [];
  for (const meterKey of new Set(named)) {
    if (!meterKey || !(await terms.of(meterKey, now))) continue;
    if (!(await repositories.meters.getByKey(accountId, meterKey))) continue;
    entitlements.push(await entitlementNow(repositories, accountId, customerId, terms, meterKey, now));
  }
  return entitlements;
}
