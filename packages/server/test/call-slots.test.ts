import { describe, expect, it } from "vitest";
import { type CallLimits, createSlots } from "../src/middleware/calls-in-flight.js";
import { noHooks } from "../src/repositories/hooks.js";

// The account slots' rule for a shared instance, on the in-memory slots alone, with a clock the test moves.
const limits: CallLimits = {
  perToken: 4,
  perAccount: 3,
  perInstance: 100,
  queued: 10,
  queueMs: 60_000,
  whileShared: { perAccount: 1, activeWindowMs: 1000 },
};

function accountSlots(shared: CallLimits["whileShared"] | null = limits.whileShared) {
  const clock = { at: 0 };
  const slots = createSlots("account", { limit: 3, capacity: 100, shared: shared ?? undefined }, limits, {
    hooks: noHooks,
    now: () => clock.at,
  });
  const clientStays = new AbortController().signal;
  /** A call of `key`: `started` once it has its slot (a flag read by the test), `leave` frees the slot. */
  const call = (key: string) => {
    const entered = { started: false, leave: undefined as (() => void) | undefined };
    const ready = slots.enter(key, clientStays).then((leave) => {
      entered.started = true;
      entered.leave = leave;
    });
    return Object.assign(entered, { ready, end: () => entered.leave?.() });
  };
  return { clock, call };
}

/** Lets every settled promise's continuation run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("an account's slots while another account is active (whileShared)", () => {
  it("alone, an account runs up to its limit at once", async () => {
    const { call } = accountSlots();
    const calls = [call("a"), call("a"), call("a"), call("a")];
    await settle();
    expect(calls.map((c) => c.started)).toEqual([true, true, true, false]);
  });

  it("while another account runs a call, a busy account's freed slots are not taken again past one", async () => {
    const { call } = accountSlots();
    const a = [call("a"), call("a"), call("a")];
    await settle();
    // B arrives while A runs 3: B runs at once (its own first call), A keeps the calls it has.
    const b = call("b");
    const aWaiting = [call("a"), call("a")];
    await settle();
    expect(b.started).toBe(true);
    expect(a.every((c) => c.started)).toBe(true);
    // A's calls end one by one: its waiting calls start only once it runs none.
    a[0]!.end();
    a[1]!.end();
    await settle();
    expect(aWaiting.map((c) => c.started)).toEqual([false, false]);
    a[2]!.end();
    await settle();
    expect(aWaiting.map((c) => c.started)).toEqual([true, false]);
  });

  it("an account whose last call ended within the window counts; after it, the busy one has its limit", async () => {
    const { clock, call } = accountSlots();
    const b = call("b");
    await settle();
    b.end();
    clock.at = 999;
    const a = [call("a"), call("a")];
    await settle();
    expect(a.map((c) => c.started)).toEqual([true, false]);
    clock.at = 1001;
    // A's next change of slots sees the window over: its line may run up to 3 again.
    const third = call("a");
    a[0]!.end();
    await settle();
    expect([a[1]!.started, third.started]).toEqual([true, true]);
  });

  it("without whileShared, other accounts change nothing", async () => {
    const { call } = accountSlots(null);
    const b = call("b");
    const a = [call("a"), call("a"), call("a")];
    await settle();
    expect([b.started, ...a.map((c) => c.started)]).toEqual([true, true, true, true]);
  });
});
