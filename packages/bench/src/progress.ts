/** Progress goes to stderr: one updating line on a terminal, a line every few seconds otherwise (CI, pipes). */
const interactive = process.stderr.isTTY === true;
const LINE_EVERY_MS = 5000;
let lastLineAt = 0;
let pending = false;

export function log(message: string) {
  if (pending) process.stderr.write("\n");
  pending = false;
  process.stderr.write(`[bench] ${message}\n`);
}

/** A progress update that may be overwritten by the next one. */
export function progress(message: string) {
  if (interactive) {
    process.stderr.write(`\r\x1b[2K[bench] ${message}`);
    pending = true;
    return;
  }
  const at = Date.now();
  if (at - lastLineAt < LINE_EVERY_MS) return;
  lastLineAt = at;
  process.stderr.write(`[bench] ${message}\n`);
}

export const formatCount = (value: number) => Math.round(value).toLocaleString("en-US");
