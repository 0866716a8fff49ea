import { ObjectId } from "mongodb";
import { describe, expect, it } from "vitest";
import {
  describeShape,
  filtersOf,
  type IndexDeclaration,
  indexesOfCommand,
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
