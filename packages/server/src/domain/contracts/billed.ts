import { type ContractInMicros, type ContractLifeFields, enteredAtOf } from "../billing/contract.js";
import { type PlannedInvoice, plannedInvoices } from "../billing/items.js";
import { withoutPausedCharges } from "./pauses.js";

/** The earlier of two instants written as ISO strings (undefined: no bound). */
const earlier = (a: string | undefined, b: string | undefined) =>
  a === undefined ? b : b === undefined || Date.parse(a) <= Date.parse(b) ? a : b;

/** Paused from its first day on, without end (e.g. created Inactive): no day of it is billed. */
const neverActive = ({ startDate, inactivePeriods = [] }: ContractLifeFields) =>
  inactivePeriods.some(({ from, to }) => to === undefined && Date.parse(from) <= Date.parse(startDate));

/**
 * Renewed at its end (see contractAsOf): `autoRenewContract`, not Expired, and created before that end. Its term's
 * end cuts nothing: a prepaid cycle running past it is billed whole, under the same invoice key before and after
 * the renewal, so no day is billed twice (a cycle cut at the end would be keyed by the cut, then billed again).
 */
export const renewsAtEnd = (contract: ContractLifeFields) => {
  const { autoRenewContract, status, endDate } = contract;
  return (
    autoRenewContract && status !== "Expired" && endDate !== undefined && enteredAtOf(contract) < Date.parse(endDate)
  );
};

/**
 * The contract as billing runs bill it, or undefined when it bills nothing: an InReview, Error (as created) or
 * deleted contract, one never active (created Inactive), one Terminated without a termination of its own (as
 * created). A termination cuts the covered days at its day (its `endDate` for billing); paused days are taken
 * out by withoutPausedCharges and the proration; an Expired contract is billed up to its end; one that renews
 * at its end is billed as if its term did not end (renewsAtEnd), up to a termination if any.
 */
export function billedContract<C extends ContractLifeFields>(contract: C): C | undefined {
  if (contract.deletedAt || neverActive(contract)) return undefined;
  switch (contract.status) {
    case "InReview":
    case "Error":
      return undefined;
    case "Terminated":
      if (!contract.terminationAt) return undefined;
      break;
    default:
      break;
  }
  const { endDate: termEnd, ...withoutEnd } = contract;
  const endDate = earlier(renewsAtEnd(contract) ? undefined : termEnd, contract.terminationAt);
  return endDate === termEnd ? contract : ({ ...withoutEnd, ...(endDate && { endDate }) } as C);
}

/**
 * The contract as billing runs bill it (billedContract) and its planned invoices whose cycles start up to
 * `startsUpTo`, without what pauses leave unbilled: what previews and simulations price, by the rules runs bill by.
 */
export function billedPlan(
  contract: ContractInMicros,
  startsUpTo: Date,
): { contract: ContractInMicros | undefined; invoices: PlannedInvoice[] } {
  const billed = billedContract(contract);
  return {
    contract: billed,
    invoices: billed ? withoutPausedCharges(billed, plannedInvoices(billed, startsUpTo)) : [],
  };
}
