import type { Customer } from "@billing/shared";
import { describe, expectTypeOf, it } from "vitest";
import { createBillingClient } from "../src/index.js";

const client = createBillingClient({ baseUrl: "http://127.0.0.1:3000", token: "t" });

describe("types come from the shared schemas", () => {
  it("returns the Customer type of the shared schema", () => {
    expectTypeOf(client.customers.get).returns.resolves.toEqualTypeOf<Customer>();
  });

  it("refuses inputs of the wrong type at compile time", () => {
    // @ts-expect-error name must be a string
    void client.customers.create({ name: 5 });
    // @ts-expect-error dueDays is an enum
    void client.customers.update("id", { dueDays: "TOMORROW" });
    // @ts-expect-error limit is a number
    void client.customers.list({ limit: "10" });
  });
});
