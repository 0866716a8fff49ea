import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/** Where Debian's `chromium` package puts the browser. */
export const DEBIAN_CHROMIUM = "/usr/bin/chromium";

/**
 * The browser of the API reference test: Debian's chromium, never one downloaded by Playwright (the machine may
 * have no internet, only package registries). `BILLING_CHROMIUM` names another executable.
 */
export const chromiumPath = (env: NodeJS.ProcessEnv = process.env) => env.BILLING_CHROMIUM || DEBIAN_CHROMIUM;

/** What the pre-test step finds on the machine. */
export interface Machine {
  chromium: string;
  present: boolean;
  root: boolean;
  aptGet: boolean;
}

export type ChromiumStep =
  | { kind: "found" }
  | { kind: "install"; commands: string[][] }
  | { kind: "unavailable"; message: string };

// Waits for another apt run (another test set-up, or the system's own updates) instead of failing on its lock.
const APT_GET = ["apt-get", "-o", "DPkg::Lock::Timeout=600"];

/** Decides, without side effects, how the browser the tests need is found or brought. */
export function planChromium(machine: Machine): ChromiumStep {
  if (machine.present) return { kind: "found" };
  const howTo =
    `install Debian's chromium (as root: apt-get update && apt-get install -y chromium), or set ` +
    `BILLING_CHROMIUM to a Chromium executable`;
  if (machine.chromium !== DEBIAN_CHROMIUM) {
    return { kind: "unavailable", message: `BILLING_CHROMIUM=${machine.chromium} does not exist: ${howTo}` };
  }
  if (!machine.root || !machine.aptGet) {
    const why = machine.root ? "apt-get is not available" : "the tests do not run as root";
    return {
      kind: "unavailable",
      message: `${DEBIAN_CHROMIUM} is missing and ${why}, so the API reference test cannot run: ${howTo}`,
    };
  }
  return {
    kind: "install",
    commands: [
      [...APT_GET, "update"],
      [...APT_GET, "install", "-y", "chromium"],
    ],
  };
}

const hasCommand = (name: string) => spawnSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" }).status === 0;

export const inspectMachine = (env: NodeJS.ProcessEnv = process.env): Machine => {
  const chromium = chromiumPath(env);
  return { chromium, present: existsSync(chromium), root: process.getuid?.() === 0, aptGet: hasCommand("apt-get") };
};

/**
 * The pre-test step: finds the browser or installs Debian's chromium. Returns a message when the browser is still
 * missing; the caller carries on, so that every other test runs and the API reference test reports the message.
 */
export function ensureChromium(log: (line: string) => void = console.log): string | undefined {
  const step = planChromium(inspectMachine());
  if (step.kind === "found") return undefined;
  if (step.kind === "unavailable") return step.message;
  log(
    `[tests] ${DEBIAN_CHROMIUM} is missing: installing Debian's chromium for the API reference test (a few ` +
      `minutes, once)`,
  );
  for (const [command, ...args] of step.commands) {
    const run = spawnSync(command!, args, {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (run.status !== 0)
      return (
        `${[command, ...args].join(" ")} failed (exit ${run.status ?? run.signal}): install Debian's chromium ` +
        `by hand`
      );
  }
  return existsSync(DEBIAN_CHROMIUM)
    ? undefined
    : `apt-get installed chromium, yet ${DEBIAN_CHROMIUM} is still missing`;
}
