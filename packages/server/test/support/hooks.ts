import type { HookPoint, Hooks } from "../../src/repositories/hooks.js";

/** A pause set at a hook point: `reached` resolves once the operation waits there; `release` lets it go on. */
export interface Pause {
  reached: Promise<void>;
  release(): void;
}

/** Hooks for a test server, and the means to pause an operation at a point or make it fail there. */
export function testHooks() {
  const rules = new Map<string, () => Promise<void>>();
  const ruleKey = (point: HookPoint, subject: string) => `${point} ${subject}`;
  const hooks: Hooks = async (point, subject) => {
    await rules.get(ruleKey(point, subject))?.();
  };
  return {
    hooks,
    /** The next operation reaching `point` for `subject` waits there until released. */
    pauseOnce(point: HookPoint, subject: string): Pause {
      let reached!: () => void;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const pause = { reached: new Promise<void>((resolve) => (reached = resolve)), release };
      rules.set(ruleKey(point, subject), async () => {
        rules.delete(ruleKey(point, subject));
        reached();
        await released;
      });
      return pause;
    },
    /** The next `times` operations reaching `point` for `subject` fail there, as if the database had failed. */
    fail(point: HookPoint, subject: string, times: number) {
      let left = times;
      rules.set(ruleKey(point, subject), async () => {
        left -= 1;
        if (left === 0) rules.delete(ruleKey(point, subject));
        throw new Error(`injected failure at ${point}`);
      });
    },
  };
}
