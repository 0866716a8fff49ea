import type { AccountsPage } from "../../db/accounts-holding.js";
import type { Repositories } from "../../repositories/index.js";

/**
 * Where a billing call's work lies (run.ts reads each in turn): due or unchecked schedules, drafts and invoices to
 * number, failures to retry, pending payments, recurring grants due and grant expiries come.
 */
export type WorkSource = "schedules" | "invoices" | "failures" | "payments" | "recurringGrants" | "expirations";

type Look = (repositories: Repositories, after: string | undefined, now: Date, wanted: number) => Promise<AccountsPage>;

/** Each source's one look across accounts (db/accounts-holding.ts), served by its owner's `(accountId, …)` index. */
const LOOKS: Record<WorkSource, Look> = {
  schedules: ({ billingRuns }, after, now, wanted) => billingRuns.accountsWithSchedulesDue(after, now, wanted),
  invoices: ({ invoices }, after, _now, wanted) => invoices.accountsToSettle(after, wanted),
  failures: ({ billingRuns }, after, now, wanted) => billingRuns.accountsWithFailuresToRetry(after, now, wanted),
  payments: ({ billingRuns }, after, _now, wanted) => billingRuns.accountsWithPendingPayments(after, wanted),
  recurringGrants: ({ creditRecurrences }, after, now, wanted) => creditRecurrences.accountsWithDue(after, now, wanted),
  expirations: ({ creditExpiries }, after, now, wanted) => creditExpiries.accountsWithDue(after, now, wanted),
};

/** A page of the accounts with billing work, in id order, each with the sources it has work in. */
export interface WorkPage {
  accounts: Map<string, ReadonlySet<WorkSource>>;
  /** The last account the page covers: the next look starts past it; undefined: from the first account again. */
  coveredTo: string | undefined;
}

/**
 * Merges the sources' pages into the first `size` accounts with work. A source whose page stopped at its `size`
 * accounts may hold more past its last one: the merged page ends there, so that every account it lists is known in
 * every source (the sources it is not listed in are proven empty for it). Pure, so that the order is tested directly.
 */
export function mergeWorkPages(pages: [WorkSource, AccountsPage][], size: number): WorkPage {
  // The earliest last account of a page that filled (ids sort as text: hex ObjectIds of one length).
  const [end] = pages.flatMap(([, page]) => (page.complete ? [] : page.ids.slice(-1))).sort();
  const found = new Map<string, Set<WorkSource>>();
  for (const [source, page] of pages) {
    for (const id of page.ids) {
      if (end !== undefined && id > end) break;
      found.set(id, (found.get(id) ?? new Set<WorkSource>()).add(source));
    }
  }
  const ids = [...found.keys()].sort();
  const taken = ids.slice(0, size);
  return {
    accounts: new Map(taken.map((id) => [id, found.get(id) as Set<WorkSource>])),
    coveredTo: ids.length > size ? taken.at(-1) : end,
  };
}

/**
 * The first `size` accounts after `after` with billing work by `now`, found by one read per source across accounts
 * (six reads when every source's page is short): an account with nothing due costs the scheduler no command.
 */
export async function accountsWithWork(
  repositories: Repositories,
  after: string | undefined,
  now: Date,
  size: number,
): Promise<WorkPage> {
  const sources = Object.keys(LOOKS) as WorkSource[];
  const pages = await Promise.all(
    sources.map(
      async (source): Promise<[WorkSource, AccountsPage]> => [
        source,
        await LOOKS[source](repositories, after, now, size),
      ],
    ),
  );
  return mergeWorkPages(pages, size);
}
