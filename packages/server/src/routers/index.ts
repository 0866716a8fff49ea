import { router } from "../trpc.js";
import { adminRouter } from "./admin.js";
import { customersRouter } from "./customers.js";

export const appRouter = router({
  admin: adminRouter,
  customers: customersRouter,
});
export type AppRouter = typeof appRouter;
