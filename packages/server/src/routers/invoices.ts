import { router } from "../trpc.js";

export const invoicesRouter = router({});
