import { describe, expect, it } from "vitest";
import { type ExpiringCollection, purgeExpired } from "../src/db/expiry.js";
import { useTestServer } from "./support/harness.js";

const server = useTestServer();

describe("purging expired documents", () => {
  it("deletes at most its batches' worth per collection a purge, expired ones only, the rest at the next", async () => {
    const collection: ExpiringCollection = server.service.db.collection("expiryScratch");
    const now = new Date("2026-01-01T00:00:00Z");
    const expired = Array.from({ length: 25 }, (_, index) => ({
      _id: `expired-${index}`,
      expiresAt: new Date(now.getTime() - 1000 * (index + 1)),
    }));
    // Expiring at `now` exactly counts as expired; a millisecond later does not.
    expired.push({ _id: "at-now", expiresAt: now });
    await collection.insertMany([...expired, { _id: "live", expiresAt: new Date(now.getTime() + 1) }]);
    const bounds = { batchSize: 10, batches: 2 };
    // 26 expired: two batches of 10 now, the other 6 at the next purge.
    expect(await purgeExpired([collection], now, bounds)).toBe(20);
    expect(await collection.countDocuments({})).toBe(7);
    expect(await purgeExpired([collection], now, bounds)).toBe(6);
    expect(await collection.find({}).toArray()).toEqual([{ _id: "live", expiresAt: new Date(now.getTime() + 1) }]);
    expect(await purgeExpired([collection], now, bounds)).toBe(0);
  });
});
