import type { CommitmentInMicros } from "./billing/contract.js";

/** Whether a customer may use a meter now, and how much is left: all quantities in micro-units. */
export interface EntitlementMicros {
  hasAccess: boolean;
  usageMicros: bigint;
  /** The commitment's units; null: unlimited. */
  limitMicros: bigint | null;
  /** max(limit − usage, 0); null: unlimited. */
  remainingMicros: bigint | null;
}

/**
 * The entitlement a commitment gives at a usage. No commitment: unlimited, access. NONE (the default) keeps today's
 * behaviour: access whatever the usage (overage is billed or ignored). BLOCK: no access once usage ≥ units.
 * E.g. units 1000, usage 1000 → BLOCK: no access, remaining 0; NONE: access, remaining 0.
 */
export function entitlementOf(commitment: CommitmentInMicros | undefined, usageMicros: bigint): EntitlementMicros {
  if (!commitment) return { hasAccess: true, usageMicros, limitMicros: null, remainingMicros: null };
  const limitMicros = BigInt(commitment.unitsMicros);
  const remainingMicros = usageMicros >= limitMicros ? 0n : limitMicros - usageMicros;
  const blocked = commitment.limitStrategy === "BLOCK" && usageMicros >= limitMicros;
  return { hasAccess: !blocked, usageMicros, limitMicros, remainingMicros };
}
