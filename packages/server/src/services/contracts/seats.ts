import type { ContractHistoryEntry, SeatChangeCreate, SeatSchedule } from "@billing/shared";
import { billingNow } from "../../billing-clock.js";
import type { ContractInMicros, ProductInMicros } from "../../domain/billing/contract.js";
import { startOfUtcDay } from "../../domain/billing/cycles.js";
import { plannedInvoices } from "../../domain/billing/items.js";
import type { SeatChange } from "../../domain/contracts/seats.js";
import { isFinal } from "../../domain/contracts/status.js";
import { badRequest, conflict, notFound } from "../../domain/errors.js";
import type { CallScope } from "../call-scope.js";
import { readContract } from "../contract-reads.js";
import { commit } from "./commit.js";
import { entryOf, loadForChange, SYSTEM, stateOf } from "./timed-changes.js";

/** The contract's PER_SEAT product a caller names by its displayName or catalogProductId (else 400 naming it). */
function perSeatProduct(contract: ContractInMicros, name: string): ProductInMicros {
  const found = (contract.products ?? []).find(
    (product) =>
      product.pricing?.type === "PER_SEAT" && (product.displayName === name || product.catalogProductId === name),
  );
  if (!found)
    throw badRequest(`The contract has no PER_SEAT product ${JSON.stringify(name)}`, [
      { path: "product", message: "must name a PER_SEAT product of the contract" },
    ]);
  return found;
}

/** The planned invoice of the contract that bills the product's cycle containing `day` (or starting on it). */
function invoiceOfDay(contract: ContractInMicros, product: ProductInMicros, day: Date) {
  return plannedInvoices(contract, day).find(
    (planned) =>
      planned.start <= day &&
      day < planned.end &&
      planned.charges.some(({ item }) => item.kind === "product" && item.name === product.displayName),
  );
}

/**
 * Whether a change from `day` comes after its cycle was invoiced (`late`), or 409 when it cannot be billed any more.
 * Only this product's invoices count: its cycle's invoice not made yet, the change is billed there; made, the change
 * is open only in a prepaid cycle whose next cycle is not invoiced yet (the next invoice adjusts); an arrears cycle
 * already invoiced is billed as it was.
 */
async function lateness(call: CallScope, contract: ContractInMicros, product: ProductInMicros, day: Date) {
  const { repositories, accountId } = call;
  const planned = invoiceOfDay(contract, product, day);
  if (!planned || !(await repositories.invoices.hasCycle(accountId, contract.id, planned.key))) return false;
  // A prepaid cycle already issued is adjusted on the next one: there must be one, not made yet.
  const next = planned.prepaid ? invoiceOfDay(contract, product, planned.end) : undefined;
  const nextMade = next !== undefined && (await repositories.invoices.hasCycle(accountId, contract.id, next.key));
  if (!planned.prepaid || nextMade || next === undefined) {
    const reached = (nextMade ? next : planned).end.toISOString();
    throw conflict(`The contract's ${product.displayName} is invoiced up to ${reached}: seats change from then on`, [
      { path: "effectiveFrom", message: `must not be before ${reached}` },
    ]);
  }
  return true;
}

/**
 * Changes a PER_SEAT product's seats from the UTC day `effectiveFrom`: one recorded change of the contract (its
 * history's `seats` entry; 409 when a concurrent change recorded first), billed from that day (prorated by days), and
 * published as `contract.seats_changed`.
 */
export async function changeSeats(call: CallScope, contractId: string, input: SeatChangeCreate, by: string) {
  const { version, current, due } = await loadForChange(call, contractId);
  const product = perSeatProduct(current, input.product);
  const day = startOfUtcDay(new Date(input.effectiveFrom));
  if (day < startOfUtcDay(new Date(current.startDate)))
    throw badRequest("effectiveFrom must not be before the contract's startDate", [
      { path: "effectiveFrom", message: "must not be before startDate" },
    ]);
  if (isFinal(current.status))
    throw conflict(`The contract is ${current.status}: its seats no longer change`, [
      { path: "effectiveFrom", message: `cannot change the seats of a ${current.status} contract` },
    ]);
  const late = await lateness(call, current, product, day);
  const now = billingNow(call.accountId);
  const change: SeatChange = {
    product: product.displayName,
    quantity: input.quantity,
    effectiveFrom: day.toISOString(),
    enteredAt: now.toISOString(),
    ...(late && { late }),
  };
  const entries: ContractHistoryEntry[] = [
    ...due.map((timed) => entryOf(timed, SYSTEM)),
    {
      at: now.toISOString(),
      kind: "seats",
      seats: { product: change.product, quantity: change.quantity, effectiveFrom: change.effectiveFrom },
      by,
    },
  ];
  // An invoice stored since the check would make the change late (or too late): checked again once announced.
  const recheck = async () => {
    if ((await lateness(call, current, product, day)) !== late)
      throw conflict("The contract was invoiced concurrently: read it again and retry");
  };
  return commit(call, current.id, version, entries, stateOf(current), day, {
    invoicedChecks: [recheck],
    seatChanges: [...(current.seatChanges ?? []), change],
  });
}

/** The seat schedule of each PER_SEAT product: its seats from the contract's start, then each change entered. */
export async function seatScheduleOf(call: CallScope, contractId: string): Promise<SeatSchedule> {
  const contract = await readContract(call.repositories, call.accountId, contractId);
  if (!contract) throw notFound("Contract");
  const start = startOfUtcDay(new Date(contract.startDate)).toISOString();
  const seats = (contract.products ?? [])
    .filter((product) => product.pricing?.type === "PER_SEAT")
    .flatMap((product) => [
      {
        product: product.displayName,
        quantity: product.seats ?? 0,
        effectiveFrom: start,
        adjustedOnNextInvoice: false,
      },
      ...(contract.seatChanges ?? [])
        .filter((change) => change.product === product.displayName)
        .map(({ product: name, quantity, effectiveFrom, enteredAt, late }) => ({
          product: name,
          quantity,
          effectiveFrom,
          enteredAt,
          adjustedOnNextInvoice: late === true,
        })),
    ]);
  return { seats };
}
