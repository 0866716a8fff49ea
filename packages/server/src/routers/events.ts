import { router } from "../trpc.js";

export const eventsRouter = router({});
