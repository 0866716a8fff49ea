import { router } from "../trpc.js";

export const contractsRouter = router({});
