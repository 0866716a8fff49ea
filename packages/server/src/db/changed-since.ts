import type { Collection, Document, Filter, WithId } from "mongodb";

/** A resource the webhook sweep found changed: its account, the time of the change it was read by, and itself. */
export interface ChangedResource<Resource> {
  accountId: string;
  at: Date;
  resource: Resource;
}

/**
 * The documents whose time `field` is at or after `since`, across accounts, oldest first, at most `limit`, as
 * resources: the one query by which the webhook sweep reads each collection's recent changes (an index on `field`
 * serves it). A document without the time (a contract never deleted) is not a change of that kind.
 */
export async function changedSince<Doc extends Document & { accountId: string }, Resource>(
  collection: Collection<Doc>,
  field: keyof Doc & string,
  since: Date,
  limit: number,
  toResource: (doc: WithId<Doc>) => Resource,
): Promise<ChangedResource<Resource>[]> {
  const docs = await collection
    .find({ [field]: { $gte: since } } as Filter<Doc>)
    .sort({ [field]: 1 })
    .limit(limit)
    .toArray();
  return docs.flatMap((doc) => {
    const at: unknown = doc[field];
    return at instanceof Date ? [{ accountId: doc.accountId, at, resource: toResource(doc) }] : [];
  });
}
