import { describe, expect, it } from "vitest";
import {
  burnPlan,
  dueExpirations,
  grantOfEntry,
  grantTermIssues,
  grantTermsOf,
  inBurnOrder,
  type OpenGrant,
  payableMicros,
  paysInvoice,
} from "../src/domain/grants.js";
import {
  BalanceCeilingError,
  debitStep,
  dueStep,
  EMPTY_LEDGER,
  grantStep,
  type LedgerState,
  type LedgerStep,
  MAX_OPEN_GRANTS,
  paymentEndSeq,
  paymentStep,
  settled,
  TooManyGrantsError,
  unreversedByGrant,
  voidStep,
} from "../src/domain/ledger.js";
import { asMicros } from "../src/domain/money/micros.js";

/** Burn order, eligibility, payment plans, expiry and the ledger's steps: the pure rules (src/domain). */
const at = (text: string) => new Date(`${text}T00:00:00Z`);
const USD = 1_000_000;

/** The terms of a grant besides its id and amount: from Jan 1 2024, no expiry, priority 50. */
const TERMS = { effectiveAt: at("2024-01-01"), expiresAt: undefined, priority: 50, currency: "USD" };

const grant = (grantId: string, seq: number, usd: number, terms: Partial<OpenGrant> = {}): OpenGrant => ({
  grantId,
  seq,
  amountMicros: asMicros(usd * USD),
  remainingMicros: asMicros(usd * USD),
  ...TERMS,
  ...terms,
});

describe("burn order", () => {
  it("lower priority first, then the earliest expiry (none last), then the oldest grant", () => {
    const grants = [
      grant("never-old", 1, 10),
      grant("june", 2, 10, { expiresAt: at("2024-06-01") }),
      grant("never-new", 3, 10),
      grant("march", 4, 10, { expiresAt: at("2024-03-01") }),
      grant("urgent", 5, 10, { priority: 0 }),
      grant("last", 6, 10, { priority: 100, expiresAt: at("2024-02-01") }),
      grant("march-newer", 7, 10, { expiresAt: at("2024-03-01") }),
    ];
    expect(inBurnOrder(grants).map((candidate) => candidate.grantId)).toEqual([
      "urgent",
      "march",
      "march-newer",
      "june",
      "never-old",
      "never-new",
      "last",
    ]);
  });

  it("a grant pays invoices issued from its effectiveAt on, and before its expiresAt", () => {
    const window = grant("g", 1, 10, { effectiveAt: at("2024-02-01"), expiresAt: at("2024-03-01") });
    expect(paysInvoice(window, { issuedAt: new Date("2024-01-31T23:59:59.999Z"), currency: "USD" })).toBe(false);
    expect(paysInvoice(window, { issuedAt: at("2024-02-01"), currency: "USD" })).toBe(true);
    expect(paysInvoice(window, { issuedAt: new Date("2024-02-29T23:59:59.999Z"), currency: "USD" })).toBe(true);
    // The expiry instant itself is no longer valid: an invoice issued at midnight March 1 is not paid.
    expect(paysInvoice(window, { issuedAt: at("2024-03-01"), currency: "USD" })).toBe(false);
  });

  it("a grant pays only invoices of its currency: a USD grant not a EUR invoice, a EUR grant does", () => {
    const issued = { issuedAt: at("2024-02-01"), currency: "EUR" };
    // USD 100 and EUR 30.005 held: a EUR invoice may take the EUR grant's whole cents, 30.00, and nothing of the USD.
    const eur = { amountMicros: asMicros(30_005_000), remainingMicros: asMicros(30_005_000), currency: "EUR" };
    const grants = [grant("usd", 1, 100), grant("eur", 2, 0, eur)];
    expect(paysInvoice(grant("usd", 1, 100), issued)).toBe(false);
    expect(payableMicros(grants, issued)).toBe(30 * USD);
    expect(burnPlan(grants, issued, asMicros(50 * USD))).toEqual([{ grantId: "eur", micros: 30 * USD }]);
  });
});

describe("payment plans", () => {
  const issued = at("2024-02-01");
  const grants = [
    grant("later", 1, 30),
    grant("soon", 2, 20, { expiresAt: at("2024-02-15") }),
    grant("future", 3, 100, { effectiveAt: at("2024-02-02") }),
    grant("expired", 4, 100, { effectiveAt: at("2023-01-01"), expiresAt: at("2024-02-01") }),
  ];

  it("counts only the grants that may pay the invoice: 30 + 20 = 50 (the future and the expired one are not)", () => {
    expect(payableMicros(grants, { issuedAt: issued, currency: "USD" })).toBe(50 * USD);
  });

  it("empties the first grant in burn order before the next: 35 = 20 (soon) + 15 (later)", () => {
    expect(burnPlan(grants, { issuedAt: issued, currency: "USD" }, asMicros(35 * USD))).toEqual([
      { grantId: "soon", micros: 20 * USD },
      { grantId: "later", micros: 15 * USD },
    ]);
  });

  it("pays at most what the grants hold: asked 80, pays 50", () => {
    expect(burnPlan(grants, { issuedAt: issued, currency: "USD" }, asMicros(80 * USD))).toEqual([
      { grantId: "soon", micros: 20 * USD },
      { grantId: "later", micros: 30 * USD },
    ]);
  });

  it("pays whole cents in all, taking sub-cent amounts from a grant when the total stays whole", () => {
    // 0.004 + 10.003 = 10.007 held: whole cents are 10.00; the first grant gives all its 0.004, the second 9.996.
    const dusty = [
      grant("dust", 1, 0, { amountMicros: asMicros(4_000), remainingMicros: asMicros(4_000), priority: 0 }),
      grant("main", 2, 0, { amountMicros: asMicros(10_003_000), remainingMicros: asMicros(10_003_000) }),
    ];
    expect(payableMicros(dusty, { issuedAt: issued, currency: "USD" })).toBe(10_000_000);
    expect(burnPlan(dusty, { issuedAt: issued, currency: "USD" }, asMicros(50 * USD))).toEqual([
      { grantId: "dust", micros: 4_000 },
      { grantId: "main", micros: 9_996_000 },
    ]);
    // A sub-cent balance pays nothing.
    expect(burnPlan([dusty[0]!], { issuedAt: issued, currency: "USD" }, asMicros(50 * USD))).toEqual([]);
  });

  it("plans nothing for an invoice of 0", () => {
    expect(burnPlan(grants, { issuedAt: issued, currency: "USD" }, asMicros(0))).toEqual([]);
  });
});

describe("expiry", () => {
  it("grants expired at `now`, the earliest first, then the oldest", () => {
    const grants = [
      grant("b", 1, 1, { expiresAt: at("2024-03-01") }),
      grant("a", 2, 1, { expiresAt: at("2024-02-01") }),
      grant("c", 3, 1, { expiresAt: at("2024-03-01") }),
      grant("open", 4, 1, { expiresAt: at("2024-03-02") }),
      grant("never", 5, 1),
    ];
    expect(dueExpirations(grants, at("2024-03-01")).map((candidate) => candidate.grantId)).toEqual(["a", "b", "c"]);
    expect(dueExpirations(grants, new Date("2024-01-31T23:59:59Z"))).toEqual([]);
  });

  it("grant terms: expiresAt after now and after effectiveAt, naming the field", () => {
    const now = new Date("2024-05-01T12:00:00Z");
    expect(grantTermIssues({}, now)).toEqual([]);
    expect(grantTermIssues({ effectiveAt: "2020-01-01T00:00:00Z" }, now)).toEqual([]);
    expect(grantTermIssues({ expiresAt: "2024-05-01T12:00:01Z" }, now)).toEqual([]);
    expect(grantTermIssues({ expiresAt: "2024-05-01T12:00:00Z" }, now)).toEqual([
      { path: "expiresAt", message: "must be after now (2024-05-01T12:00:00.000Z)" },
    ]);
    expect(
      grantTermIssues({ expiresAt: "2024-06-01T00:00:00Z", effectiveAt: "2024-06-01T00:00:00+00:00" }, now),
    ).toEqual([{ path: "expiresAt", message: "must be after effectiveAt" }]);
    // Offsets are instants: 02:00+02:00 is midnight UTC, before the expiry at 01:00Z.
    expect(
      grantTermIssues({ expiresAt: "2024-06-01T01:00:00Z", effectiveAt: "2024-06-01T02:00:00+02:00" }, now),
    ).toEqual([]);
  });
});

describe("ledger steps", () => {
  const now = at("2024-02-10");
  /** Grants A 100 (expires Feb 5), B 50 (priority 10), C 30: balance 180. */
  const ledger = () => {
    let state: LedgerState = EMPTY_LEDGER;
    state = grantStep(state, {
      ...TERMS,
      grantId: "A",
      amountMicros: asMicros(100 * USD),
      expiresAt: at("2024-02-05"),
    }).after;
    state = grantStep(state, { ...TERMS, grantId: "B", amountMicros: asMicros(50 * USD), priority: 10 }).after;
    return grantStep(state, { ...TERMS, grantId: "C", amountMicros: asMicros(30 * USD) }).after;
  };

  it("a grant adds its amount at the next place, and opens with all of it left", () => {
    const state = ledger();
    expect(state).toMatchObject({ seq: 3, balanceMicros: 180 * USD, pending: [] });
    expect(state.grants.map(({ grantId, seq, remainingMicros }) => [grantId, seq, remainingMicros])).toEqual([
      ["A", 1, 100 * USD],
      ["B", 2, 50 * USD],
      ["C", 3, 30 * USD],
    ]);
  });

  it("a payment's first entry burns its first grant; the others are due next, in order, before anything else", () => {
    // Invoice issued Feb 1 for 120: B (priority 10) gives 50, then A (expires Feb 5, before C's never) 70.
    const burns = burnPlan(ledger().grants, { issuedAt: at("2024-02-01"), currency: "USD" }, asMicros(120 * USD));
    expect(burns).toEqual([
      { grantId: "B", micros: 50 * USD },
      { grantId: "A", micros: 70 * USD },
    ]);
    const first = paymentStep(ledger(), burns)!;
    expect(first).toMatchObject({
      type: "Usage",
      grantId: "B",
      amountMicros: -50 * USD,
      after: { seq: 4, balanceMicros: 130 * USD, pending: [burns[1]] },
    });
    // B is empty: it leaves the open grants.
    expect(first.after.grants.map((open) => open.grantId)).toEqual(["A", "C"]);
    // At Feb 10, A has expired, but the payment's second part comes first: 70 of A, then A's last 30 expire.
    const second = dueStep(first.after, now)!;
    expect(second).toMatchObject({
      type: "Usage",
      grantId: "A",
      amountMicros: -70 * USD,
      after: { seq: 5, balanceMicros: 60 * USD, pending: [] },
    });
    const expiration = dueStep(second.after, now)!;
    expect(expiration).toMatchObject({
      type: "Expiration",
      grantId: "A",
      amountMicros: -30 * USD,
      after: { seq: 6, balanceMicros: 30 * USD },
    });
    expect(dueStep(expiration.after, now)).toBeUndefined();
    expect(settled(first.after, now)).toEqual(expiration.after);
  });

  it("an expiration removes exactly what is left, once; a void of an expired grant finds nothing", () => {
    const state = settled(ledger(), now);
    // A's 100 expired: 180 − 100 = 80 left, in B and C.
    expect(state).toMatchObject({ seq: 4, balanceMicros: 80 * USD });
    expect(state.grants.map((open) => open.grantId)).toEqual(["B", "C"]);
    expect(voidStep(state, "A")).toBeUndefined();
  });

  it("a void removes what is left of its grant", () => {
    const spent = debitStep(ledger(), "Usage", { grantId: "C", micros: asMicros(12_340_000) }).after;
    const voided = voidStep(spent, "C")!;
    // 30 − 12.34 = 17.66 voided; 180 − 30 = 150 left.
    expect(voided).toMatchObject({
      type: "Void",
      grantId: "C",
      amountMicros: -17_660_000,
      after: { seq: 5, balanceMicros: 150 * USD },
    });
    expect(voidStep(voided.after, "C")).toBeUndefined();
  });

  it("no entry takes more than its grant holds; grants keep the balance ceiling and open-grant bound", () => {
    expect(() => debitStep(ledger(), "Usage", { grantId: "C", micros: asMicros(30 * USD + 1) })).toThrow(RangeError);
    expect(() => debitStep(ledger(), "Void", { grantId: "Z", micros: asMicros(1) })).toThrow(RangeError);
    const full = grantStep(EMPTY_LEDGER, { ...TERMS, grantId: "big", amountMicros: asMicros(1e15) }).after;
    expect(() => grantStep(full, { ...TERMS, grantId: "more", amountMicros: asMicros(1) })).toThrow(
      BalanceCeilingError,
    );
    let many: LedgerState = EMPTY_LEDGER;
    for (let i = 0; i < MAX_OPEN_GRANTS; i += 1) {
      many = grantStep(many, { ...TERMS, grantId: `g${i}`, amountMicros: asMicros(1) }).after;
    }
    expect(() => grantStep(many, { ...TERMS, grantId: "one-more", amountMicros: asMicros(1) })).toThrow(
      TooManyGrantsError,
    );
  });
});

describe("the worked example of docs/decisions.md (Credit ledger)", () => {
  it("A 100, B 50 (priority 10), C 30 (expires Mar 1); invoices of 70 (Feb 1) and 25 (Mar 1); A voided", () => {
    const steps: [string, string, number, number][] = [];
    let state: LedgerState = EMPTY_LEDGER;
    const apply = (step: LedgerStep | undefined) => {
      steps.push([step!.type, step!.grantId, step!.amountMicros / USD, step!.after.balanceMicros / USD]);
      state = step!.after;
    };
    apply(grantStep(state, { ...TERMS, grantId: "A", amountMicros: asMicros(100 * USD) }));
    apply(grantStep(state, { ...TERMS, grantId: "B", amountMicros: asMicros(50 * USD), priority: 10 }));
    apply(grantStep(state, { ...TERMS, grantId: "C", amountMicros: asMicros(30 * USD), expiresAt: at("2024-03-01") }));
    apply(
      paymentStep(state, burnPlan(state.grants, { issuedAt: at("2024-02-01"), currency: "USD" }, asMicros(70 * USD))),
    );
    apply(dueStep(state, at("2024-02-01")));
    expect(dueStep(state, new Date("2024-02-29T23:59:59Z"))).toBeUndefined();
    apply(dueStep(state, at("2024-03-01")));
    apply(
      paymentStep(state, burnPlan(state.grants, { issuedAt: at("2024-03-01"), currency: "USD" }, asMicros(25 * USD))),
    );
    apply(voidStep(state, "A"));
    expect(steps).toEqual([
      ["Grant", "A", 100, 100],
      ["Grant", "B", 50, 150],
      ["Grant", "C", 30, 180],
      ["Usage", "B", -50, 130],
      ["Usage", "C", -20, 110],
      ["Expiration", "C", -10, 100],
      ["Usage", "A", -25, 75],
      ["Void", "A", -75, 0],
    ]);
  });
});

describe("the ledger's rules the repository keeps to", () => {
  it("a payment's last entry lies as many places after a part as there are parts pending after it", () => {
    const burn = (grantId: string, micros: number) => ({ grantId, micros: asMicros(micros) });
    const afterFirstPart: LedgerState = { ...EMPTY_LEDGER, seq: 4, pending: [burn("b", 2 * USD), burn("c", USD)] };
    expect(paymentEndSeq(afterFirstPart)).toBe(6);
    expect(paymentEndSeq({ ...afterFirstPart, seq: 6, pending: [] })).toBe(6);
  });

  it("a grant's terms left out are: effective now, never expiring, priority 50", () => {
    const now = at("2024-03-01");
    const currency = "EUR";
    expect(grantTermsOf({ currency }, now)).toEqual({ effectiveAt: now, expiresAt: undefined, priority: 50, currency });
    expect(
      grantTermsOf(
        { effectiveAt: "2024-01-01T00:00:00Z", expiresAt: "2025-01-01T00:00:00Z", priority: 0, currency },
        now,
      ),
    ).toEqual({ effectiveAt: at("2024-01-01"), expiresAt: at("2025-01-01"), priority: 0, currency });
  });
});

describe("grants and reversals as stored", () => {
  it("reads a grant stored before terms as effective always, never expiring, of default priority, in USD", () => {
    expect(grantOfEntry({ grantId: "g1", seq: 3, amountMicros: asMicros(5 * USD) })).toEqual({
      grantId: "g1",
      seq: 3,
      amountMicros: 5 * USD,
      effectiveAt: new Date(0),
      expiresAt: undefined,
      priority: 50,
      currency: "USD",
    });
    const terms = { effectiveAt: at("2024-01-01"), expiresAt: at("2025-01-01"), priority: 10, currency: "EUR" };
    expect(grantOfEntry({ grantId: "g2", seq: 4, amountMicros: asMicros(USD), ...terms })).toMatchObject(terms);
  });

  it("gives back per grant what an invoice's usage took and its reversals have not, in burn order", () => {
    const entry = (grant: string, amountMicros: number) => ({ grant, amountMicros: asMicros(amountMicros) });
    const usage = [entry("a", -3 * USD), entry("b", -2 * USD), entry("a", -USD)];
    const owed = unreversedByGrant(usage, [entry("a", 4 * USD), entry("b", USD)], ({ grant }) => grant);
    expect(owed).toEqual([{ entry: usage[1], micros: USD }]);
    expect(unreversedByGrant(usage, [], ({ grant }) => grant).map(({ micros }) => micros)).toEqual([4 * USD, 2 * USD]);
  });
});
