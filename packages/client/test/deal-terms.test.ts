import { describe, expect, it } from "vitest";
import { ConflictError, ValidationError } from "../src/index.js";
import { newClient, rejectionOf, useTestServer } from "./helpers.js";

const ctx = useTestServer();

describe("deal terms through the SDK", () => {
  it("changes seats, reads the schedule, and applies a coupon once", async () => {
    const { client } = await newClient(ctx.server);
    const customer = await client.customers.create({ name: "Seated Co" });
    const contract = await client.contracts.create({
      customerId: customer.id,
      name: "Team",
      startDate: "2024-04-01T00:00:00Z",
      products: [{ displayName: "Seats", pricing: { type: "PER_SEAT", price: 10 }, seats: 25, minimum: 100 }],
      discounts: [{ type: "PERCENT", value: 10, cycles: 1 }],
    });
    expect(contract.products?.[0]).toMatchObject({ seats: 25, minimum: 100 });
    expect(contract.discounts).toEqual([{ type: "PERCENT", value: 10, cycles: 1 }]);
    await client.contracts.changeSeats(contract.id, {
      product: "Seats",
      quantity: 30,
      effectiveFrom: "2024-04-11T00:00:00Z",
    });
    expect((await client.contracts.seats(contract.id)).map((entry) => entry.quantity)).toEqual([25, 30]);
    const coupon = await client.coupons.create({
      code: "HALF",
      discount: { type: "PERCENT", value: 50 },
      duration: "ONCE",
    });
    expect(coupon).toMatchObject({ code: "HALF", archivedAt: null });
    const redemption = await client.coupons.redeem(contract.id, "HALF");
    expect(redemption).toMatchObject({ code: "HALF", contractId: contract.id, duration: "ONCE" });
    expect(await rejectionOf(client.coupons.redeem(contract.id, "HALF"))).toBeInstanceOf(ConflictError);
    expect(await client.coupons.ofContract(contract.id)).toEqual([redemption]);
    expect((await client.coupons.archive("HALF")).archivedAt).toEqual(expect.any(String));
    expect((await client.coupons.list()).coupons.map((each) => each.code)).toEqual(["HALF"]);
    const invalid = await rejectionOf(
      client.coupons.create({ code: "AMT", discount: { type: "AMOUNT", value: 5 }, duration: "FOREVER" }),
    );
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).issues.map((issue) => issue.path)).toEqual(["currency"]);
  });
});
