/**
 * The steps of repository operations (and of the call gate) between which a test can pause the operation, or make
 * the next step fail.
 */
export type HookPoint =
  /** Rotation has read the token as live and is about to write (subject: the token id). */
  | "tokens.rotate:read"
  /** Revocation has read the token as live and is about to write (subject: the token id). */
  | "tokens.revoke:read"
  /**
   * A credit ledger movement (or a due entry before it) has read the customer's last entry and is about to insert the
   * next one at the place after it (subject: the customer id, canonical).
   */
  | "credits.append"
  /** A keyed call has run and its outcome is about to be stored (subject: `<accountId>/<key>`). */
  | "idempotency.complete"
  /** The billing engine is about to insert an invoice, its credits already debited (subject: the contract id). */
  | "invoices.insert"
  /** A number is about to be claimed for a document (subject: the document id). */
  | "documentNumbers.claim"
  /** An invoice change is logged and the invoice is about to take its effect (subject: the invoice id). */
  | "invoices.applyChange"
  /** A change of a contract, its checks passed once, is about to announce itself (subject: the contract id). */
  | "contracts.announce"
  /** A change of a contract is about to be logged at its next place (subject: the contract id). */
  | "contracts.log"
  /** A change of a contract is logged and the contract is about to take its effect (subject: the contract id). */
  | "contracts.applyChange"
  /** A test clock's advance holds its clock's lease, before it does anything (subject: the account id). */
  | "testClocks.leased"
  /** A change's webhook message is about to be stored (subject: the event type). */
  | "webhooks.record"
  /** A batch of events is stored and its rollup partials are about to be written (subject: the account). */
  | "events.partials"
  /** A widening has read a rollup key's documents and is about to read its events (subject: the key's alias). */
  | "rollups.widen"
  /** A streamed read of events has used up a page the driver fetched, before the next (subject: the account). */
  | "events.page"
  /** The client of a call closed its connection before the answer was written (subject: `request`). */
  | "calls.clientGone"
  /** A call waits for a slot of its token or account (subject: `token` or `account`). */
  | "calls.queued"
  /** A plan migration is about to claim a contract of its batch (subject: the contract id). */
  | "planMigrations.claim"
  /** A plan migration has moved a contract (or failed to) and is about to record it (subject: the contract id). */
  | "planMigrations.settle"
  /** A waiting call's client has gone: it left the line without running (subject: `token` or `account`). */
  | "calls.dropped";

/**
 * Awaited at each point: resolving lets the operation go on, rejecting makes its next step fail. Only tests pass
 * one, to replay an interleaving that timing alone makes rare, or a fault of the database; the service runs with
 * `noHooks`.
 */
export type Hooks = (point: HookPoint, subject: string) => Promise<void>;

export const noHooks: Hooks = async () => {};
