import { expect } from "vitest";
import type { TestServer } from "../server.js";
import { ids, type Tenant } from "../tenants.js";

/**
 * One request of the intruder, built from the victim's data (or, to compare, from `tenantOfNothing()`) and its own.
 * `notFound`: 404 NOT_FOUND, the very answer to values naming nothing; `asForNothing`: that answer, whatever it is;
 * `ownOnly`: a success, `check` saying what of the intruder's own it shows. No answer names an id of the victim.
 */
export interface Attempt {
  input: (victim: Tenant, intruder: Tenant) => Record<string, unknown>;
  expect: "notFound" | "asForNothing" | "ownOnly";
  check?: (answer: any, tenants: { victim: Tenant; intruder: Tenant; server: TestServer }) => void | Promise<void>;
}

/**
 * How one procedure is tried. `changesCaller`: an accepted attempt changes the intruder's own data (a create, a
 * run), so each transport gets an intruder of its own.
 */
export interface Tried {
  attempts: Attempt[];
  changesCaller?: true;
}

/**
 * A group's procedures, keyed by their router ("customers"), each by its full path ("customers.create") so that an
 * entry reads the same wherever it sits.
 */
export type TriedByRouter = Record<string, Record<string, Tried>>;

/** A first page listing exactly the intruder's own items of a kind. */
type ListKey =
  | "customers"
  | "contracts"
  | "meters"
  | "taxRates"
  | "coupons"
  | "invoices"
  | "creditNotes"
  | "events"
  | "endpoints"
  | "alerts"
  | "plans";
export const ownList = (key: ListKey, of: (owner: Tenant) => string[]) => ({
  expect: "ownOnly" as const,
  check: (answer: any, { intruder }: { intruder: Tenant }) => expect(ids(answer[key])).toEqual(of(intruder)),
});
