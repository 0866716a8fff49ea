import { router } from "../trpc.js";

export const measurementsRouter = router({});
