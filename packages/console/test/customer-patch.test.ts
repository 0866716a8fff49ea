import { describe, expect, it } from "vitest";
import { customerPatch, typedFrom } from "../src/customer-patch.js";

const stored = {
  id: "c1",
  name: "Acme",
  externalId: "acme-1",
  aliases: ["acme"],
  netTermsDays: 30,
  contacts: [{ name: "Ann", email: "ann@acme.test" }, { email: "bob@acme.test" }],
  address: { city: "Lyon", country: "FR" },
};

describe("the customer edit form's PATCH body", () => {
  it("is empty when nothing was changed", () => {
    expect(customerPatch(stored, { ...typedFrom(stored), customFields: undefined })).toEqual({});
  });

  it("sends only what changed: the first contact's email (others kept), the address whole, terms as a number", () => {
    const typed = {
      ...typedFrom(stored),
      email: " billing@acme.test ",
      postalCode: "69001",
      netTermsDays: "45",
      aliases: "acme, ACME Ltd",
      customFields: [{ serviceCustomFieldName: "region", value: "EU" }],
    };
    expect(customerPatch(stored, typed)).toEqual({
      aliases: ["acme", "ACME Ltd"],
      netTermsDays: 45,
      contacts: [{ name: "Ann", email: "billing@acme.test" }, { email: "bob@acme.test" }],
      address: { city: "Lyon", postalCode: "69001", country: "FR" },
      customFields: [{ serviceCustomFieldName: "region", value: "EU" }],
    });
  });

  it("leaves out a text emptied (the API cannot unset it) and sends a bad number as typed, for the API to name", () => {
    const typed = { ...typedFrom(stored), externalId: "", city: "", country: "", netTermsDays: "4.5" };
    expect(customerPatch(stored, { ...typed, customFields: undefined })).toEqual({ netTermsDays: "4.5" });
  });
});
