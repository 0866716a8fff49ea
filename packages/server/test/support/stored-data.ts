import { BSON, type Db } from "mongodb";
import { REQUEST_BOOKKEEPING, REQUEST_BOOKKEEPING_FIELDS } from "./stored-writes.js";

/**
 * Every stored document of the database, per collection, as canonical extended JSON; with `naming`, only the
 * documents whose text contains it (an account's id: that account's documents, and any other that points at it).
 */
export async function snapshotData(db: Db, naming?: string): Promise<Map<string, string>> {
  const names = (await db.listCollections({}, { nameOnly: true }).toArray())
    .map(({ name }) => name)
    .filter((name) => !REQUEST_BOOKKEEPING.has(name));
  const entries = await Promise.all(
    names.sort().map(async (name) => {
      const projection = Object.fromEntries((REQUEST_BOOKKEEPING_FIELDS[name] ?? []).map((field) => [field, 0]));
      const documents = await db.collection(name).find({}, { projection }).sort({ _id: 1 }).toArray();
      const texts = documents.map((document) => BSON.EJSON.stringify(document, { relaxed: false }));
      return [name, texts.filter((text) => naming === undefined || text.includes(naming)).join("\n")] as const;
    }),
  );
  return new Map(entries);
}

/** Names of the collections whose documents differ between two snapshots. */
export function changedCollections(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((name) => (before.get(name) ?? "") !== (after.get(name) ?? ""));
}

/** Every document of every collection, request bookkeeping included, as one text: what a copy of the database holds. */
export async function everythingStored(db: Db): Promise<string> {
  const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map(({ name }) => name);
  const collections = await Promise.all(names.map((name) => db.collection(name).find().toArray()));
  return BSON.EJSON.stringify(collections);
}
