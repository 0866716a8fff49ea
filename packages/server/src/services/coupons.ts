import type { Coupon, CouponCreate, CouponRedemption } from "@billing/shared";
import { billingNow } from "../billing-clock.js";
import type { ContractInMicros } from "../domain/billing/contract.js";
import { conflict, notFound } from "../domain/errors.js";
import type { CallScope } from "./call-scope.js";
import { readContract } from "./contract-reads.js";
import { recordMrrCurve } from "./contracts/mrr.js";
import { publishChange } from "./webhook-events.js";

/** Stores a new coupon (409 when its code is taken) and publishes `coupon.created`. */
export async function createCoupon({ repositories, accountId, log }: CallScope, input: CouponCreate) {
  const created = await repositories.coupons.create(accountId, input);
  await publishChange(repositories, accountId, log, { type: "coupon.created", data: created });
  return created;
}

/**
 * Archives the coupon of `code` (404 when the account has none): it is redeemed no more, and the redemptions made
 * keep applying. Publishes `coupon.archived`; a coupon archived before is answered as it is.
 */
export async function archiveCoupon({ repositories, accountId, log }: CallScope, code: string): Promise<Coupon> {
  const result = await repositories.coupons.archive(accountId, code, new Date());
  if (!result) throw notFound("Coupon");
  if (result.archived)
    await publishChange(repositories, accountId, log, { type: "coupon.archived", data: result.coupon });
  return result.coupon;
}

/** Why a coupon cannot be applied to a contract of `currency` now (409), before any slot is tried. */
function refusal(coupon: Coupon, currency: string, now: Date): string | undefined {
  if (coupon.archivedAt) return `Coupon ${coupon.code} is archived`;
  if (coupon.redeemBy && Date.parse(coupon.redeemBy) < now.getTime())
    return `Coupon ${coupon.code} expired at ${coupon.redeemBy}`;
  if (coupon.discount.type === "AMOUNT" && coupon.currency !== currency)
    return `Coupon ${coupon.code} takes an amount in ${coupon.currency}: the contract is in ${currency}`;
  return undefined;
}

/** The most slots one redemption tries of a coupon without maxRedemptions before answering 409 (a busy coupon). */
const MAX_SLOT_TRIES = 1000;

/**
 * Applies the coupon of `code` to the contract (404 for either unknown): 409 when it is archived, expired, of another
 * currency (AMOUNT), already applied to the contract, or used up. A redemption is one insert into the coupon's next
 * free slot (its n-th redemption): at most `maxRedemptions` inserts can win, whatever the concurrency; a lost slot
 * moves on to the next. Publishes `coupon.redeemed`; the contract's invoices priced from then on apply it.
 */
export async function redeemCoupon(call: CallScope, contractId: string, code: string): Promise<CouponRedemption> {
  const { repositories, accountId, log } = call;
  const contract = await readContract(repositories, accountId, contractId);
  if (!contract) throw notFound("Contract");
  const coupon = await repositories.coupons.get(accountId, code);
  if (!coupon) throw notFound("Coupon");
  const now = billingNow(accountId);
  const refused = refusal(coupon, contract.currency, now);
  if (refused) throw conflict(refused, [{ path: "code", message: refused }]);
  const alreadyApplied = () =>
    conflict(`Coupon ${code} is already applied to the contract`, [{ path: "code", message: "already applied" }]);
  if (await repositories.couponRedemptions.held(accountId, code, contract.id)) throw alreadyApplied();
  const first = (await repositories.couponRedemptions.count(accountId, code)) + 1;
  const last = coupon.maxRedemptions ?? first + MAX_SLOT_TRIES;
  for (let n = first; n <= last; n += 1) {
    const redemption = await repositories.couponRedemptions.claim(accountId, n, {
      code,
      contractId: contract.id,
      customerId: contract.customerId,
      discount: coupon.discount,
      ...(coupon.currency && { currency: coupon.currency }),
      duration: coupon.duration,
      redeemedAt: now.toISOString(),
    });
    if (redemption) {
      await recordRedemptionMrr(call, contract);
      await publishChange(repositories, accountId, log, { type: "coupon.redeemed", data: redemption });
      return redemption;
    }
    if (await repositories.couponRedemptions.held(accountId, code, contract.id)) throw alreadyApplied();
  }
  const usedUp = `Coupon ${code} is used up: ${coupon.maxRedemptions ?? "all its"} redemptions are made`;
  throw conflict(usedUp, [{ path: "code", message: "used up" }]);
}

/**
 * The contract's MRR curve with the coupon just redeemed (a recurring one lowers its MRR from now on), under its
 * current change number, revision its redemptions so far: a later change of the contract wins over it.
 */
async function recordRedemptionMrr(call: CallScope, contract: ContractInMicros) {
  const { repositories, accountId } = call;
  const [forChange, redemptions] = await Promise.all([
    repositories.contracts.getForChange(accountId, contract.id),
    repositories.couponRedemptions.ofContract(accountId, contract.id),
  ]);
  await recordMrrCurve(call, contract, forChange?.version ?? 0, { revision: redemptions.length });
}

/** The coupons applied to the contract (404 when the account has no such live contract), oldest first. */
export async function contractCoupons(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  contractId: string,
): Promise<CouponRedemption[]> {
  const contract = await readContract(repositories, accountId, contractId);
  if (!contract) throw notFound("Contract");
  return repositories.couponRedemptions.ofContract(accountId, contract.id);
}
