import type { ContractInMicros, ContractLifeFields } from "../billing/contract.js";
import { type PlannedInvoice, plannedInvoices } from "../billing/items.js";
import { withoutPausedCharges } from "./pauses.js";

/** The earlier of two instants written as ISO strings (undefined: no bound). */
const earlier = (a: string | undefined, b: string | undefined) =>
  a === undefined ? b : b === undefined || Date.parse(a) <= Date.parse(b) ? a : b;

/** Paused from its first day on, without end (e.g. created Inactive): no day of it is billed. */
const neverActive = ({ startDate, inactivePeriods = [] }: ContractLifeFields) =>
  inactivePeriods.some(({ from, to }) => to === undefined && Date.parse(from) <= Date.parse(startDate));

/**
 * The contract as billing runs bill it, or undefined when it bills nothing: an InReview, Error (as created) or
 * deleted contract, one never active (created Inactive), one Terminated without a termination of its own (as
 * created). A termination cuts the covered days at its day (its `endDate` for billing); paused days are taken
 * out by withoutPausedCharges and the proration; an Expired contract is billed up to its end.
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
  const endDate = earlier(contract.endDate, contract.terminationAt);
  return endDate === contract.endDate ? contract : { ...contract, ...(endDate && { endDate }) };
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
