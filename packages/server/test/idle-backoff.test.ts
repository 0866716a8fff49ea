import { describe, expect, it } from "vitest";
import { idleBackoff, MAX_TICKS_SAT_OUT, ticksToSitOut, workedOn } from "../src/services/idle-backoff.js";

/** The timer ticks (1-based) on which a chore is looked at, over `ticks` ticks, given what each look finds. */
function looksOver(ticks: number, finds: (look: number) => boolean) {
  const backoff = idleBackoff();
  const looked: number[] = [];
  for (let tick = 1; tick <= ticks; tick += 1) {
    if (!backoff.due(true)) continue;
    looked.push(tick);
    backoff.looked(finds(looked.length));
  }
  return looked;
}

describe("an idle chore's backoff over the upkeep's ticks", () => {
  it("sits out 0, 1, 3, then 7 ticks after 1, 2, 3 and more idle looks in a row", () => {
    expect([0, 1, 2, 3, 4, 10].map(ticksToSitOut)).toEqual([0, 1, 3, 7, 7, 7]);
    expect(MAX_TICKS_SAT_OUT).toBe(7);
  });

  it("finding nothing, is looked at on ticks 1, 3, 7, 15, then every 8th: 8 looks in 48 ticks, not 48", () => {
    // After each idle look the next comes 1 + the ticks sat out later: 1 + 1, 1 + 3, then 1 + 7 for good.
    expect(looksOver(48, () => false)).toEqual([1, 3, 7, 15, 23, 31, 39, 47]);
  });

  it("finding work, is looked at every tick; idle again, it backs off from the start", () => {
    // Looks 1–3 find work (ticks 1, 2, 3); look 4 (tick 4) finds none: tick 5 sat out, tick 6 looks (none again),
    // ticks 7–9 sat out, tick 10 looks, then 7 ticks sat out: nothing more by tick 17.
    expect(looksOver(17, (look) => look <= 3)).toEqual([1, 2, 3, 4, 6, 10]);
  });

  it("never sits out a pass runNow asks for (a test's tick, an instance's own wake-up)", () => {
    const backoff = idleBackoff();
    for (let look = 0; look < 5; look += 1) backoff.looked(false);
    expect(backoff.due(true)).toBe(false);
    expect(backoff.due(false)).toBe(true);
  });

  it("reads a step's outcome: a count or a list of what it did", () => {
    expect([0, 3, [], ["inv_1"], undefined].map(workedOn)).toEqual([false, true, false, true, true]);
  });
});
