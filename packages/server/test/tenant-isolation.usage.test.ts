import { tenantIsolationSuite } from "./support/tenant-isolation/suite.js";

// Tenant isolation on the procedures of the routers the group "usage" lists (test/support/tenant-isolation/usage.ts).
// A new procedure's attempts go into its router's table there (or in the group holding its router); a new router gets
// a table in a group, and test/tenant-isolation.coverage.test.ts fails while a procedure is tried by no file or by two.
tenantIsolationSuite("usage");
