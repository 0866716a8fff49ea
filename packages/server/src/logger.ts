import { type DestinationStream, type LevelWithSilent, type Logger, pino } from "pino";

export type { Logger };

/** The server's log: one JSON object per line on stdout (or `destination`), ISO timestamps. */
export function createLogger(level: LevelWithSilent, destination?: DestinationStream): Logger {
  return pino({ level, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}
