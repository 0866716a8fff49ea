import type { Document } from "mongodb";
import { watchEveryClient } from "../../src/db/connect.js";

/**
 * Which collections the service changed, read from the driver's own command stream: every write command a client of
 * the service sends (insert, update, delete, findAndModify) and what its reply says it changed. Tests that prove a
 * refused request stored nothing use it instead of copying the whole database before and after each request (a copy
 * costs a read of every document, and the database grows as the file runs). Only a write command changes a
 * document, and its reply counts what it changed, so a write with no effect (a guarded update matching nothing, an
 * insert refused on a duplicate key) is none. What `stored-data.ts` leaves out is left out here too: request
 * bookkeeping (rate-limit slots, idempotency keys) and a token's `lastUsedAt`.
 */

/** Collections of requests, not data (counters, replay keys): refused requests change them by design. */
export const REQUEST_BOOKKEEPING = new Set(["rateLimitWindows", "rateLimitSlots", "idempotencyKeys"]);

/** Fields that every authenticated request may write, refused or not (a token's last use, refreshed once a minute). */
export const REQUEST_BOOKKEEPING_FIELDS: Record<string, string[]> = { tokens: ["lastUsedAt"] };

const WRITE_COMMANDS = new Set(["insert", "update", "delete", "findAndModify"]);

interface Write {
  database: string;
  collection: string;
}

/** Every write with an effect since this module loaded, in the order their replies came. */
const writes: Write[] = [];

/** Whether an update only sets request bookkeeping fields of its collection. */
function touchesOnlyBookkeeping(collection: string, update: Document | undefined): boolean {
  const fields = REQUEST_BOOKKEEPING_FIELDS[collection];
  if (!fields || !update || Array.isArray(update)) return false;
  const operators = Object.entries(update);
  return (
    operators.length > 0 &&
    operators.every(
      ([operator, changes]) =>
        operator === "$set" && Object.keys(changes as Document).every((field) => fields.includes(field)),
    )
  );
}

/** Whether the reply of a write command says it changed a document (bookkeeping aside). */
function changedSomething(commandName: string, command: Document, reply: Document): boolean {
  const collection = command[commandName] as string;
  switch (commandName) {
    case "insert":
    case "delete":
      return (reply.n ?? 0) > 0;
    case "update": {
      const changed = (reply.nModified ?? 0) > 0 || (reply.upserted?.length ?? 0) > 0;
      const updates = (command.updates ?? []) as { u?: Document }[];
      return changed && !updates.every((update) => touchesOnlyBookkeeping(collection, update.u));
    }
    case "findAndModify": {
      const { n = 0, updatedExisting, upserted } = reply.lastErrorObject ?? {};
      const changed = command.remove ? n > 0 : updatedExisting === true || upserted !== undefined;
      return changed && !touchesOnlyBookkeeping(collection, command.update);
    }
    default:
      return false;
  }
}

watchEveryClient((client) => {
  const started = new Map<number, { commandName: string; command: Document; database: string }>();
  client.on("commandStarted", ({ commandName, command, databaseName, requestId }) => {
    if (WRITE_COMMANDS.has(commandName)) started.set(requestId, { commandName, command, database: databaseName });
  });
  client.on("commandFailed", ({ requestId }) => started.delete(requestId));
  client.on("commandSucceeded", ({ requestId, reply }) => {
    const write = started.get(requestId);
    if (!write) return;
    started.delete(requestId);
    const collection = write.command[write.commandName] as string;
    if (REQUEST_BOOKKEEPING.has(collection)) return;
    if (changedSomething(write.commandName, write.command, reply as Document)) {
      writes.push({ database: write.database, collection });
    }
  });
});

/**
 * A mark in the service's writes to `database`: `changedSince()` names the collections in which a write changed a
 * document after it, sorted (none: nothing stored there changed).
 */
export function writesTo(database: string) {
  const from = writes.length;
  return {
    changedSince: () => [
      ...new Set(
        writes
          .slice(from)
          .filter((write) => write.database === database)
          .map((write) => write.collection),
      ),
    ],
  };
}
