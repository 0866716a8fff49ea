import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { useTestServer } from "./support/harness.js";

const README = fileURLToPath(new URL("../../../README.md", import.meta.url));
const server = useTestServer();

/** The README's quick start, as a newcomer pastes it, with their token and the server's address. */
async function quickStart(token: string, url: string): Promise<string> {
  const readme = await readFile(README, "utf8");
  const block = /<!-- quick-start:begin[^>]*-->\n```sh\n([\s\S]*?)\n```\n<!-- quick-start:end -->/.exec(readme)?.[1];
  if (!block) throw new Error("README.md has no quick-start block between its markers");
  return block.replace(/^export TOKEN=.*$/m, `export TOKEN=${token}`).replace(/^export API=.*$/m, `export API=${url}`);
}

describe("README quick start", () => {
  it("goes from a new account to October's invoice when pasted into bash", async () => {
    const { token } = await server.newAccount();
    const script = await quickStart(token, server.url);
    const { stdout } = await promisify(execFile)("bash", ["-c", script], { timeout: 60_000 });
    const answers = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    // customer, meter, contract, events, usage, preview, run, invoice: each one line of JSON, no error among them.
    expect(answers.map((answer) => Object.keys(answer)[0])).toEqual([
      "customer",
      "meter",
      "contract",
      "stored",
      "usage",
      "invoice",
      "run",
      "invoice",
    ]);
    expect(answers[4].usage.value).toBe(1200 + 800);
    // 2000 tokens × 0.002 = 4.00, plus the 49.00 platform fee.
    expect(answers[5].invoice.revenueBreakdown.total).toBe(53);
    expect(answers[6].run).toMatchObject({ invoicesCreated: 1 });
    expect(answers[7].invoice).toMatchObject({
      id: answers[6].run.invoiceIds[0],
      billingCycle: { startTime: "2025-10-01T00:00:00.000Z", endTime: "2025-11-01T00:00:00.000Z" },
      revenueBreakdown: { total: 53 },
    });
  });
});
