import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { chromiumPath, DEBIAN_CHROMIUM, planChromium } from "./support/chromium.js";

const debianMachine = { chromium: DEBIAN_CHROMIUM, present: false, root: true, aptGet: true };

describe("the pre-test step that brings the API reference test's browser", () => {
  it("uses the browser it finds, installing nothing", () => {
    expect(planChromium({ ...debianMachine, present: true })).toEqual({ kind: "found" });
    expect(
      planChromium({ ...debianMachine, chromium: "/opt/chromium/chrome", present: true, root: false, aptGet: false }),
    ).toEqual({
      kind: "found",
    });
  });

  it("installs Debian's chromium with apt-get, after an update, when it is missing and the tests run as root", () => {
    const step = planChromium(debianMachine);
    expect(step.kind).toBe("install");
    const commands = step.kind === "install" ? step.commands : [];
    expect(commands.map((command) => command.filter((word) => !word.startsWith("-") && !word.includes("=")))).toEqual([
      ["apt-get", "update"],
      ["apt-get", "install", "chromium"],
    ]);
    expect(commands[1]).toContain("-y");
  });

  it.each([
    ["not root", { root: false }, "the tests do not run as root"],
    ["no apt-get", { aptGet: false }, "apt-get is not available"],
  ])("says why and how to fix it when it cannot install (%s)", (_, machine, why) => {
    const step = planChromium({ ...debianMachine, ...machine });
    expect(step.kind).toBe("unavailable");
    const message = step.kind === "unavailable" ? step.message : "";
    expect(message).toContain(`${DEBIAN_CHROMIUM} is missing and ${why}`);
    expect(message).toContain("apt-get install -y chromium");
  });

  it("never installs when BILLING_CHROMIUM names a browser that is missing: apt would put it elsewhere", () => {
    const step = planChromium({ ...debianMachine, chromium: "/nowhere/chromium" });
    expect(step).toEqual({
      kind: "unavailable",
      message: expect.stringContaining("BILLING_CHROMIUM=/nowhere/chromium does not exist"),
    });
  });

  it("reads BILLING_CHROMIUM, else Debian's path", () => {
    expect(chromiumPath({})).toBe(DEBIAN_CHROMIUM);
    expect(chromiumPath({ BILLING_CHROMIUM: "/opt/chrome" })).toBe("/opt/chrome");
  });

  it("as a script, reports a browser it cannot bring and exits 0, so that the other tests still run", async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "test/support/ensure-chromium.ts"],
      {
        env: { ...process.env, BILLING_CHROMIUM: "/nowhere/chromium" },
      },
    );
    expect(stdout).toBe("");
    expect(stderr).toContain("[tests] BILLING_CHROMIUM=/nowhere/chromium does not exist");
  });
});
