import { describe, expect, it } from "vitest";
import { taxLabel } from "../src/pages/invoice-lines.js";

describe("a tax rate's label on the invoice page", () => {
  it("adds the rate to a name without it, and never repeats it", () => {
    expect(taxLabel("VAT", 20)).toBe("VAT 20%");
    expect(taxLabel("VAT 20%", 20)).toBe("VAT 20%");
    expect(taxLabel("VAT 20 %", 20)).toBe("VAT 20 %");
    expect(taxLabel("Sales tax 8.875%", 8.875)).toBe("Sales tax 8.875%");
    // Another number in the name is not the rate.
    expect(taxLabel("State 2", 6.5)).toBe("State 2 6.5%");
  });
});
