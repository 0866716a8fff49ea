import { z } from "zod";
import { money } from "./money.js";

/** Periods a recurrence may have (100 years of months); absent `count`: until stopped (a contract's end). */
export const MAX_RECURRENCE_PERIODS = 1200;

/**
 * How a grant recurs (docs/decisions.md, "Recurring credits and rollover"): period k (1, 2, …) starts `every` × (k − 1)
 * after the first period's start; each period's grant is effective at its start and expires at the next period's
 * start, when up to `rollover.maxAmount` of what is left of the period carries into a rollover grant of the next.
 */
export const creditRecurrence = z
  .strictObject({
    every: z.strictObject({
      unit: z.enum(["MONTH"]),
      value: z.number().int().min(1).max(12).meta({ description: "Months between two periods' starts, 1 to 12." }),
    }),
    count: z
      .number()
      .int()
      .min(1)
      .max(MAX_RECURRENCE_PERIODS)
      .optional()
      .meta({ description: "Periods in all (the first included); absent: every period until stopped." }),
    rollover: z
      .strictObject({
        maxAmount: money.gt(0).meta({
          description: "At most this much of what a period leaves carries into a grant of the next period.",
        }),
      })
      .optional()
      .meta({ description: "Absent: what a period leaves expires with it." }),
  })
  .meta({ id: "CreditRecurrence" });
export type CreditRecurrence = z.infer<typeof creditRecurrence>;

/** Grants a contract may carry. */
export const MAX_CONTRACT_CREDIT_GRANTS = 10;

/** Credits a contract grants its customer every period of `recurrence`, from its start while it is billed. */
export const contractCreditGrant = z
  .strictObject({
    amount: money.gt(0).meta({ description: "Granted each period, in the contract's currency." }),
    recurrence: creditRecurrence,
    priority: z.number().int().min(0).max(100).optional().meta({ description: "0 to 100, default 50: lower first." }),
    expiresAfter: z
      .strictObject({
        unit: z.enum(["DAY", "MONTH"]),
        value: z.number().int().min(1).max(1200),
      })
      .optional()
      .meta({
        description:
          "Each period's grant expires this long after its period starts (default: at the next period's start). " +
          "Not with `recurrence.rollover`.",
      }),
  })
  .refine((grant) => !(grant.expiresAfter && grant.recurrence.rollover), {
    path: ["expiresAfter"],
    message: "not with recurrence.rollover: a rollover happens where a period's grant expires, at the next period",
  })
  .meta({ id: "ContractCreditGrant" });
export type ContractCreditGrant = z.infer<typeof contractCreditGrant>;

export const contractCreditGrants = z
  .array(contractCreditGrant)
  .max(MAX_CONTRACT_CREDIT_GRANTS)
  .meta({
    description:
      "Credits issued to the contract's customer each period of their recurrence, periods counted from `startDate`, " +
      "while the contract is billed (not before it starts, nor after its end or termination).",
  });
