import type { Collection, FindCursor } from "mongodb";
import { isDuplicateKeyError } from "./duplicate-key.js";

/**
 * A resumable migration's note of where its walk stands: one document (`_id` the migration) in its repository's
 * migrations collection, holding the cursor's fields (where the next page starts) while it walks, `done` once it ended.
 */
export type MigrationProgress<Cursor extends object> = Partial<Cursor> & { _id: string; done: boolean };

/** One step's page, read and worked on: how many items it counts (the step's answer), where the next one starts. */
export interface WalkedPage<Cursor> {
  read: number;
  /** Undefined: the walk has ended. */
  next: Cursor | undefined;
}

/**
 * Reads and works on the page after `at` (`{}`: from the start). Bounded, and written so that redoing it writes
 * nothing twice (unique inserts, keyed entries): a crash before the note, or two instances, redo a page.
 */
export type Walk<Cursor extends object> = (at: Partial<Cursor>) => Promise<WalkedPage<Cursor>>;

/**
 * One migration that walks a collection a bounded page per step (an upkeep tick) and resumes where its note says,
 * on any instance. The note is replaced whole after each page (an upsert; another instance's upsert made first is
 * a duplicate key, and its note stands): a note lost to a concurrent or crashed step only makes a page be redone.
 * `remembersDone`: a step that read the note done answers 0 from then on without reading it (a done migration stays
 * done); `doneSeen` tells whether one has.
 */
export function pagedMigration<Cursor extends object>(
  collection: Collection<MigrationProgress<Cursor>>,
  id: string,
  { remembersDone = false } = {},
) {
  // Read and written by `_id` alone, as a note of any cursor's fields: the driver's filter types cannot see that
  // `_id` is a key of MigrationProgress<Cursor> for every Cursor.
  const progress = collection as unknown as Collection<{ _id: string; done: boolean }>;
  let doneSeen = false;
  const note = (doc: { done: boolean }) =>
    progress.replaceOne({ _id: id }, doc, { upsert: true }).catch((error) => {
      if (!isDuplicateKeyError(error)) throw error;
    });

  return {
    get doneSeen() {
      return doneSeen;
    },

    /** Whether it is done, read now (by `_id`): nothing remembered. */
    done: async () => (await progress.findOne({ _id: id }, { projection: { done: 1 } }))?.done === true,

    /** Marks it done: a database without the walk's documents has nothing to migrate. */
    markDone: () => note({ done: true }),

    /**
     * One step: the page after the note's place, then the note moved past it; once the walk has ended, `finish`
     * (what the migration made unneeded, e.g. an old unique index) before the note says done, so a crash between
     * redoes both. Answers what the page counts (0: done).
     */
    async step(walk: Walk<Cursor>, finish?: () => Promise<unknown>): Promise<number> {
      if (doneSeen && remembersDone) return 0;
      const migration = await progress.findOne({ _id: id });
      if (migration?.done) {
        doneSeen = true;
        return 0;
      }
      const { _id, done, ...at } = migration ?? {};
      const { read, next } = await walk(at as Partial<Cursor>);
      if (!next) await finish?.();
      await note(next ? { ...next, done: false } : { done: true });
      return read;
    },
  };
}

/** Where an `_id` walk stands: after the last document of the page before. */
export interface AfterId<Id> {
  after: Id;
}

/** The walk's documents after `after` in `_id` order (all of them from the start). */
export const afterId = <Id>(after: Id | undefined) => (after ? { _id: { $gt: after } } : {});

/**
 * The walk of a collection in `_id` order, `size` documents a page: `read` finds the documents after the place
 * (through afterId, with its own filter and projection), `work` takes each page that has any.
 */
export function walkById<Item extends { _id: unknown }>(
  read: (after: Item["_id"] | undefined) => FindCursor<Item>,
  size: number,
  work: (page: Item[]) => Promise<unknown>,
): Walk<AfterId<Item["_id"]>> {
  return async ({ after }) => {
    const page = await read(after).sort({ _id: 1 }).limit(size).toArray();
    if (page.length > 0) await work(page);
    const last = page.at(-1);
    return { read: page.length, next: last && { after: last._id } };
  };
}
