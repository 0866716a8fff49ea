import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { isPrivateAddress, urlProblem } from "../src/domain/webhooks/addresses.js";
import { messageIdOf } from "../src/domain/webhooks/events.js";
import { attemptResult, parseRetrySchedule, retryAfterFailure } from "../src/domain/webhooks/retry-schedule.js";
import { generateSecret, signedHeaders } from "../src/domain/webhooks/signing.js";
import { publicOnlyLookup } from "../src/services/webhook-sender.js";

describe("signing", () => {
  it("produces the signature the standardwebhooks package produces for the same secret, id, time and body", () => {
    const secret = generateSecret();
    const body = '{"type":"customer.created","timestamp":"2024-01-01T00:00:00.000Z","data":{"id":"x"}}';
    const headers = signedHeaders([secret], "msg_abc", 1_704_067_200, body);
    expect(headers["webhook-signature"]).toBe(new Webhook(secret).sign("msg_abc", new Date(1_704_067_200_000), body));
    expect(headers).toMatchObject({ "webhook-id": "msg_abc", "webhook-timestamp": "1704067200" });
  });

  it("sends one space-separated signature per secret", () => {
    const [first, second] = [generateSecret(), generateSecret()];
    const signature = signedHeaders([first, second], "msg_1", 10, "{}")["webhook-signature"]!;
    expect(signature.split(" ")).toEqual([
      new Webhook(first).sign("msg_1", new Date(10_000), "{}"),
      new Webhook(second).sign("msg_1", new Date(10_000), "{}"),
    ]);
  });

  it("makes message ids without a full stop, one per change", () => {
    const customer = {
      id: "c1",
      createdAt: "2024-01-01T00:00:00.000Z",
      updatedAt: "2024-01-02T00:00:00.000Z",
    } as never;
    const created = messageIdOf("a1", { type: "customer.created", data: customer });
    expect(created).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(messageIdOf("a1", { type: "customer.created", data: customer })).toBe(created);
    expect(messageIdOf("a1", { type: "customer.updated", data: customer })).not.toBe(created);
    expect(messageIdOf("a2", { type: "customer.created", data: customer })).not.toBe(created);
  });

  it("gives each update of a resource its own message id, and its creation one whatever follows", () => {
    const meter = { id: "m1", createdAt: "2024-01-01T00:00:00.000Z" };
    const renamed = { ...meter, updatedAt: "2024-01-02T00:00:00.000Z" } as never;
    const renamedAgain = { ...meter, updatedAt: "2024-01-03T00:00:00.000Z" } as never;
    const firstUpdate = messageIdOf("a1", { type: "meter.updated", data: renamed });
    expect(messageIdOf("a1", { type: "meter.updated", data: renamedAgain })).not.toBe(firstUpdate);
    expect(messageIdOf("a1", { type: "meter.updated", data: renamed })).toBe(firstUpdate);
    expect(messageIdOf("a1", { type: "meter.created", data: renamedAgain })).toBe(
      messageIdOf("a1", { type: "meter.created", data: renamed }),
    );
  });
});

describe("retry schedule", () => {
  it("parses comma-separated seconds and refuses anything else", () => {
    expect(parseRetrySchedule("5,300,1800,7200,18000,36000,36000")).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(parseRetrySchedule(" 0.2 , 1 ")).toEqual([0.2, 1]);
    for (const bad of ["5,,6", "-1", "abc", "1e9", "Infinity"])
      expect(typeof parseRetrySchedule(bad), bad).toBe("string");
  });

  it("schedules each retry after the attempt before it, then fails", () => {
    const at = new Date("2024-01-01T00:00:00Z");
    expect(retryAfterFailure([5, 300], 1, null, at)).toEqual(new Date("2024-01-01T00:00:05Z"));
    expect(retryAfterFailure([5, 300], 2, null, at)).toEqual(new Date("2024-01-01T00:05:00Z"));
    expect(retryAfterFailure([5, 300], 3, null, at)).toBeUndefined();
    // A resend is one attempt: no retries after it.
    expect(retryAfterFailure([5, 300], 2, 2, at)).toBeUndefined();
  });

  it("reads 2xx as success, 410 as final, anything else as a retry", () => {
    const at = new Date("2024-01-01T00:00:00Z");
    const first = { attempt: 1, resendAttempt: null };
    expect(attemptResult([5], first, 204, at)).toEqual({
      status: "SUCCEEDED",
      attempts: 1,
      lastStatusCode: 204,
      nextAttemptAt: null,
    });
    expect(attemptResult([5], first, 410, at)).toEqual({
      status: "FAILED",
      attempts: 1,
      lastStatusCode: 410,
      nextAttemptAt: null,
    });
    expect(attemptResult([5], first, 302, at)).toMatchObject({
      status: "PENDING",
      nextAttemptAt: new Date("2024-01-01T00:00:05Z"),
    });
    expect(attemptResult([5], { attempt: 2, resendAttempt: null }, null, at)).toMatchObject({
      status: "FAILED",
      lastStatusCode: null,
    });
  });
});

describe("address safety", () => {
  it.each([
    "127.0.0.1",
    "10.0.0.1",
    "172.16.5.4",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "::1",
    "::",
    "fe80::1",
    "fd00::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "64:ff9b::10.0.0.1",
    // IPv4-compatible (deprecated): refused whatever it carries.
    "::127.0.0.1",
    "::7f00:1",
    "::8.8.8.8",
    // IPv4-mapped and IPv4-translated, in every spelling.
    "0:0:0:0:0:ffff:7f00:1",
    "::FFFF:7F00:1",
    "::ffff:0:127.0.0.1",
    "::ffff:0:a9fe:a9fe",
    // NAT64: the well-known prefix carrying a private address, and the local-use prefix.
    "64:ff9b::169.254.169.254",
    "64:ff9b::c0a8:101",
    "64:ff9b:1::a00:1",
    // 6to4 carrying a private address (127.0.0.1, 169.254.169.254, 10.0.0.1), and Teredo.
    "2002:7f00:1::1",
    "2002:a9fe:a9fe::",
    "2002:a00:1:1234::5",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    "2001:db8::1",
    "fe80::1%eth0",
    "not an address",
  ])("%s is private", (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "172.32.0.1",
    "2606:4700::1111",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    // 6to4 and NAT64 carrying a public address (8.8.8.8) reach only it.
    "2002:808:808::1",
    "64:ff9b::808:808",
  ])("%s is public", (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it("refuses http, literal private hosts in any spelling and credentials, unless private networks are allowed", () => {
    expect(urlProblem("https://hooks.example.com/x", false)).toBeUndefined();
    expect(urlProblem("http://hooks.example.com/x", false)).toBe("must be an https URL");
    for (const url of [
      "https://2130706433/",
      "https://0x7f.1/",
      "https://[::ffff:127.0.0.1]/",
      "https://[fe80::1]/",
      "https://[::127.0.0.1]:8443/h",
      "https://[64:ff9b::169.254.169.254]/",
      "https://[2002:a9fe:a9fe::]/",
    ]) {
      expect(urlProblem(url, false), url).toBe("must not point to a private, loopback or link-local address");
    }
    expect(urlProblem("https://user:pass@hooks.example.com/", false)).toBe("must not carry credentials");
    expect(urlProblem("http://127.0.0.1:3000/hooks", true)).toBeUndefined();
  });

  // Names are checked after their lookup: an IP literal is its own lookup's answer, so it stands for a name here.
  it.each(["::127.0.0.1", "::ffff:0:127.0.0.1", "64:ff9b::a9fe:a9fe", "2002:a00:1::1"])(
    "the delivery's lookup refuses a name answered with %s",
    async (answer) => {
      const error = await new Promise((resolve) => publicOnlyLookup(answer, {}, (failure) => resolve(failure)));
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/, a private address$/);
    },
  );

  it("the delivery's lookup passes on a public answer", async () => {
    const address = await new Promise((resolve) =>
      publicOnlyLookup("2002:808:808::1", {}, (_, found) => resolve(found)),
    );
    expect(address).toBe("2002:808:808::1");
  });
});
