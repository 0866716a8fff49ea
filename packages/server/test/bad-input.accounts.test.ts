import { badInputSuite } from "./support/bad-input-suite.js";

// Bad input on the operations whose OpenAPI tags the group "accounts" lists: a new tag is given its group in
// test/support/bad-input-suite.ts; test/bad-input.coverage.test.ts fails while an operation has no group or two.
badInputSuite("accounts", { deepNesting: true });
