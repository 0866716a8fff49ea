import { tenantIsolationSuite } from "./support/tenant-isolation/suite.js";

// Tenant isolation on the procedures of the group "invoicing", whose routers' tables are in
// test/support/tenant-isolation/invoicing.ts. A new procedure's attempts go into its router's table (whichever group
// holds the router); a new router gets a table in one group. test/tenant-isolation.coverage.test.ts fails while a
// procedure is tried by no file or by two.
tenantIsolationSuite("invoicing");
