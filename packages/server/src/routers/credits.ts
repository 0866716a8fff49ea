import { router } from "../trpc.js";

export const creditsRouter = router({});
