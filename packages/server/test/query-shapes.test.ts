import { MAX_ALIASES_PER_CUSTOMER } from "@billing/shared";
import { ObjectId } from "mongodb";
import { describe, expect, it } from "vitest";
import { after } from "../src/db/pagination.js";
import {
  describeShape,
  filtersOf,
  type IndexDeclaration,
  indexesOfCommand,
  MAX_SORTED_IN_SCANS,
  type QueryShape,
  serves,
  servingIndex,
  shapesOfCommand,
} from "../src/db/query-shapes.js";

/** The matcher behind `pnpm check:indexes`, on hand-written shapes and indexes, so that the gate can fail. */
const index = (name: string, ...key: [string, 1 | -1][]): IndexDeclaration => ({
  collection: "c",
  name,
  key,
  unique: false,
});
const shape = (filter: QueryShape["filter"], sort: QueryShape["sort"] = []): QueryShape => ({
  collection: "c",
  operation: "find",
  filter,
  sort,
});

describe("equality–sort–range matching", () => {
  const accountSeq = index("account_seq", ["accountId", 1], ["seq", 1]);

  it("serves equality fields in any order, then the sort, then ranges", () => {
    const threeFields = index("a_b_t", ["accountId", 1], ["customerId", 1], ["timestamp", 1]);
    expect(serves(threeFields, shape({ customerId: "equality", accountId: "equality" }))).toBe(true);
    expect(serves(threeFields, shape({ accountId: "equality", customerId: "equality", timestamp: "range" }))).toBe(
      true,
    );
    expect(serves(threeFields, shape({ accountId: "equality", customerId: "in" }, [["timestamp", -1]]))).toBe(true);
    // A prefix of the index serves; a field the index lacks does not (documents would be read to be dropped).
    expect(serves(threeFields, shape({ accountId: "equality" }))).toBe(true);
    expect(serves(threeFields, shape({ accountId: "equality", type: "equality" }))).toBe(false);
  });

  it("serves a sort in the index's direction or all reversed, never mixed", () => {
    const compound = index("a_b_c", ["a", 1], ["b", 1], ["c", -1]);
    expect(
      serves(
        compound,
        shape({ a: "equality" }, [
          ["b", 1],
          ["c", -1],
        ]),
      ),
    ).toBe(true);
    expect(
      serves(
        compound,
        shape({ a: "equality" }, [
          ["b", -1],
          ["c", 1],
        ]),
      ),
    ).toBe(true);
    expect(
      serves(
        compound,
        shape({ a: "equality" }, [
          ["b", 1],
          ["c", 1],
        ]),
      ),
    ).toBe(false);
    expect(serves(accountSeq, shape({ accountId: "equality" }, [["seq", -1]]))).toBe(true);
  });

  it("does not serve a range placed before the sort, nor a sort the equality fields do not lead to", () => {
    const rangeFirst = index("a_t_s", ["accountId", 1], ["timestamp", 1], ["seq", 1]);
    expect(serves(rangeFirst, shape({ accountId: "equality", timestamp: "range" }, [["seq", 1]]))).toBe(false);
    expect(serves(accountSeq, shape({ customerId: "equality" }, [["seq", 1]]))).toBe(false);
    expect(serves(accountSeq, shape({}, [["seq", 1]]))).toBe(false);
  });

  it("serves a keyset page: a range on the sort field itself is served by the sort's place", () => {
    expect(serves(accountSeq, shape({ accountId: "equality", seq: "range" }, [["seq", 1]]))).toBe(true);
  });

  it("never serves `$ne`, `$regex` or other operators", () => {
    expect(serves(accountSeq, shape({ accountId: "equality", seq: "other" }))).toBe(false);
  });

  it("serves `_id` equality by `_id_`, and only indexes of the shape's collection", () => {
    expect(servingIndex(shape({ _id: "equality" }), [])?.name).toBe("_id_");
    expect(servingIndex(shape({ _id: "equality", accountId: "equality", revokedAt: "range" }), [])?.name).toBe("_id_");
    expect(servingIndex(shape({ _id: "range", accountId: "equality" }), [])).toBeUndefined();
    expect(serves({ ...accountSeq, collection: "other" }, shape({ accountId: "equality" }))).toBe(false);
  });
});

describe("shapes of driver commands", () => {
  it("reads a find's filter classes and sort, without values", () => {
    const [found] = shapesOfCommand("find", {
      find: "invoices",
      filter: {
        accountId: "a",
        _id: new ObjectId(),
        seq: { $gt: 3 },
        at: new Date(),
        deletedAt: null,
        tag: { $in: ["x"] },
      },
      sort: { seq: 1 },
    });
    expect(describeShape(found!)).toBe(
      "find {_id: equality, accountId: equality, at: equality, deletedAt: equality, seq: range, tag: in} sort {seq: 1}",
    );
  });

  it("splits a top-level `$or` into one shape per branch and merges `$and`", () => {
    expect(filtersOf({ accountId: "a", $or: [{ t: { $gt: 1 } }, { t: 1, _id: { $gt: 2 } }] })).toEqual([
      { accountId: "equality", t: "range" },
      { _id: "range", accountId: "equality", t: "equality" },
    ]);
    expect(filtersOf({ $and: [{ accountId: "a" }, { _id: { $gt: 1 } }] })).toEqual([
      { _id: "range", accountId: "equality" },
    ]);
  });

  it("takes countDocuments ($match + $group) as a count, and reads updates, deletes, findAndModify", () => {
    const count = shapesOfCommand("aggregate", {
      aggregate: "c",
      pipeline: [{ $match: { accountId: "a" } }, { $group: { _id: 1, n: { $sum: 1 } } }],
    });
    expect(count.map(describeShape)).toEqual(["count {accountId: equality}"]);
    expect(
      shapesOfCommand("update", { update: "c", updates: [{ q: { _id: 1, n: { $lt: 2 } }, u: {} }] }).map(describeShape),
    ).toEqual(["update {_id: equality, n: range}"]);
    expect(
      shapesOfCommand("delete", { delete: "c", deletes: [{ q: { expiresAt: { $lte: new Date() } } }] }).map(
        describeShape,
      ),
    ).toEqual(["delete {expiresAt: range}"]);
    // The driver sends sorts and index keys as Maps, which keep their order.
    const sort = new Map([
      ["b", -1],
      ["a", 1],
    ]);
    expect(shapesOfCommand("findAndModify", { findAndModify: "c", query: { a: 1 }, sort }).map(describeShape)).toEqual([
      "findAndModify {a: equality} sort {b: -1, a: 1}",
    ]);
    expect(shapesOfCommand("insert", { insert: "c", documents: [{}] })).toEqual([]);
  });

  it("reads index declarations of createIndexes, keys in order", () => {
    const command = {
      createIndexes: "c",
      indexes: [
        {
          name: "a_1_b_-1",
          key: new Map([
            ["a", 1],
            ["b", -1],
          ]),
          unique: true,
        },
      ],
    };
    expect(indexesOfCommand(command)).toEqual([
      {
        collection: "c",
        name: "a_1_b_-1",
        key: [
          ["a", 1],
          ["b", -1],
        ],
        unique: true,
      },
    ]);
  });
});

describe("`$in` lists: sorted scans MongoDB merges only up to 200", () => {
  const usageIndex: IndexDeclaration = {
    collection: "events",
    name: "usage",
    key: [
      ["accountId", 1],
      ["name", 1],
      ["customerAlias", 1],
      ["timestamp", 1],
      ["_id", 1],
    ],
    unique: false,
  };
  /** A customer's events in time order, as events.ofCustomer reads them, under `aliases`. */
  const usageRead = (aliases: number) =>
    shapesOfCommand("find", {
      find: "events",
      filter: {
        accountId: "a",
        name: "api_call",
        customerAlias: { $in: Array.from({ length: aliases }, (_, index) => `alias-${index}`) },
        timestamp: { $gte: new Date(0), $lt: new Date(86_400_000) },
      },
      sort: { timestamp: 1, _id: 1 },
    });

  it("serves a sorted read over 200 values or fewer, not over 201: MongoDB would sort those in memory", () => {
    expect(MAX_SORTED_IN_SCANS).toBe(200);
    const [within] = usageRead(200);
    const [over] = usageRead(201);
    expect(serves(usageIndex, within!)).toBe(true);
    expect(serves(usageIndex, over!)).toBe(false);
    expect(describeShape(over!)).toBe(
      "find {accountId: equality, customerAlias: in, name: equality, timestamp: range} sort {timestamp: 1, _id: 1}" +
        " ($in: 201 sorted scans)",
    );
    // Two lists multiply: 15 × 14 = 210 scans.
    const [product] = shapesOfCommand("find", {
      find: "c",
      filter: {
        a: { $in: Array.from({ length: 15 }, (_, i) => i) },
        b: { $in: Array.from({ length: 14 }, (_, i) => i) },
      },
      sort: { t: 1 },
    });
    expect(product!.inScans).toBe(210);
    expect(serves(index("a_b_t", ["a", 1], ["b", 1], ["t", 1]), product!)).toBe(false);
  });

  it("serves any number of values without a sort (index bounds), and `_id` lists by `_id_`", () => {
    const [unsorted] = shapesOfCommand("find", {
      find: "events",
      filter: { accountId: "a", name: "n", customerAlias: { $in: Array.from({ length: 1000 }, (_, i) => `${i}`) } },
    });
    expect(serves(usageIndex, unsorted!)).toBe(true);
    const [purge] = shapesOfCommand("delete", {
      delete: "c",
      deletes: [
        { q: { _id: { $in: Array.from({ length: 1000 }, (_, i) => `${i}`) }, expiresAt: { $lte: new Date() } } },
      ],
    });
    expect(servingIndex(purge!, [])?.name).toBe("_id_");
  });

  it("a customer's usage read, with the most aliases a customer may have and its externalId, is served", () => {
    const [usage] = usageRead(MAX_ALIASES_PER_CUSTOMER + 1);
    expect(servingIndex(usage!, [usageIndex])?.name).toBe("usage");
  });
});

describe("`$or` branches with the top-level bounds", () => {
  const eventsIndex = index("a_t_id", ["accountId", 1], ["timestamp", 1], ["_id", 1]);
  const windowStart = new Date("2024-01-01T00:00:00Z");
  const windowEnd = new Date("2024-01-02T00:00:00Z");
  const cursorTime = new Date("2024-01-01T18:00:00Z");
  const cursorId = new ObjectId();
  const page = (keyset: Record<string, unknown>) =>
    shapesOfCommand("find", {
      find: "c",
      filter: { $and: [{ accountId: "a", timestamp: { $gte: windowStart, $lt: windowEnd } }, keyset] },
      sort: { timestamp: 1, _id: 1 },
    });

  it("fails a keyset page whose top-level bound starts at the window while its `$or` starts at the cursor", () => {
    const orOnly = {
      $or: [{ timestamp: { $gt: cursorTime } }, { timestamp: cursorTime, _id: { $gt: cursorId } }],
    };
    const shapes = page(orOnly);
    expect(shapes).toHaveLength(2);
    for (const shape of shapes) {
      expect(shape.startsBeforeItsOr).toBe("timestamp");
      expect(serves(eventsIndex, shape)).toBe(false);
    }
    expect(describeShape(shapes[1]!)).toBe(
      "find {_id: range, accountId: equality, timestamp: equality} sort {timestamp: 1, _id: 1}" +
        " (timestamp: top-level bound wider than its $or)",
    );
  });

  it("serves the keyset page pagination builds (a top-level bound at the cursor), each branch with the bounds", () => {
    const shapes = page(after("timestamp", cursorTime, cursorId));
    expect(shapes.map(describeShape)).toEqual([
      "find {accountId: equality, timestamp: range} sort {timestamp: 1, _id: 1}",
      "find {_id: range, accountId: equality, timestamp: equality} sort {timestamp: 1, _id: 1}",
    ]);
    for (const shape of shapes) expect(serves(eventsIndex, shape)).toBe(true);
  });

  it("a descending page's bound is its upper one; a `$or` leaving the sort field free is not judged", () => {
    const newestFirst = (top: Date) =>
      shapesOfCommand("find", {
        find: "c",
        filter: { accountId: "a", timestamp: { $lte: top }, $or: [{ timestamp: { $lt: cursorTime } }] },
        sort: { timestamp: -1 },
      })[0]!;
    expect(newestFirst(windowEnd).startsBeforeItsOr).toBe("timestamp");
    expect(newestFirst(cursorTime).startsBeforeItsOr).toBeUndefined();
    // A sort field fixed by equality orders nothing: the scan starts on the next one.
    const [accountFirst] = shapesOfCommand("find", {
      find: "c",
      filter: { accountId: "a", timestamp: { $gte: windowStart }, $or: [{ timestamp: { $gt: cursorTime } }] },
      sort: { accountId: 1, timestamp: 1 },
    });
    expect(accountFirst!.startsBeforeItsOr).toBe("timestamp");
    const [free] = shapesOfCommand("find", {
      find: "c",
      filter: { accountId: "a", $or: [{ owing: false }, { owing: true, dueDate: { $gte: windowStart } }] },
      sort: { seq: 1 },
    });
    expect(free!.startsBeforeItsOr).toBeUndefined();
  });

  it("intersects a field's conditions whatever the order of the keys: the tighter one decides", () => {
    const expected = [
      { accountId: "equality", t: "range" },
      { _id: "range", accountId: "equality", t: "equality" },
    ];
    const branches = [{ t: { $gt: 1 } }, { t: 1, _id: { $gt: 2 } }];
    expect(filtersOf({ accountId: "a", t: { $gte: 0 }, $or: branches })).toEqual(expected);
    // Before, a top-level range after the `$or` overwrote the branch's equality.
    expect(filtersOf({ $or: branches, accountId: "a", t: { $gte: 0 } })).toEqual(expected);
    expect(filtersOf({ a: { $in: [1, 2] }, $and: [{ a: 1 }] })).toEqual([{ a: "equality" }]);
  });
});
