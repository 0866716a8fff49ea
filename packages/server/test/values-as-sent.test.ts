import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { useAccount, useTestServer } from "./support/harness.js";

/**
 * Every value is stored exactly as sent, or refused with a 400 naming it: never changed in silence (docs/decisions.md,
 * "API reference and hostile input" → Values as sent). Bodies are raw JSON text where JSON.stringify cannot write them.
 */
const server = useTestServer();
const account = useAccount(server);

const LONE = "holds a lone UTF-16 surrogate, which cannot be stored";

/** A tRPC mutation or query with a raw JSON input: its HTTP status and error data (code, issues). */
async function trpc(procedure: string, input: string, method: "POST" | "GET" = "POST") {
  const url = `${server.url}/trpc/${procedure}${method === "GET" ? `?input=${encodeURIComponent(input)}` : ""}`;
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${account.token}`, "content-type": "application/json" },
    body: method === "POST" ? input : undefined,
  });
  const answer = await response.json();
  return { status: response.status, data: answer.error?.data, result: answer.result?.data };
}

const rest = (method: string, path: string, body?: string | Buffer) =>
  body instanceof Buffer
    ? fetch(server.url + path, {
        method,
        headers: { authorization: `Bearer ${account.token}`, "content-type": "application/json" },
        body: new Uint8Array(body),
      }).then(async (response) => ({ status: response.status, body: await response.json() }))
    : server.rest(method, path, { token: account.token, body });

const customerWithValue = (name: string, valueJson: string) =>
  `{"name":${JSON.stringify(name)},"customFields":[{"serviceCustomFieldName":"f","value":${valueJson}}]}`;

describe("lone UTF-16 surrogates", () => {
  it("are refused in a name, naming it, over REST and tRPC; a surrogate pair is stored as sent", async () => {
    const body = '{"name":"lone\\ud800x"}';
    const refused = await rest("POST", "/customers", body);
    expectError(refused, 400, "BAD_REQUEST");
    expect(refused.body.issues).toEqual([{ path: "name", message: LONE }]);
    const viaTrpc = await trpc("customers.create", body);
    expect([viaTrpc.status, viaTrpc.data.code, viaTrpc.data.issues]).toEqual([
      400,
      "BAD_REQUEST",
      [{ path: "name", message: LONE }],
    ]);
    expect((await rest("GET", "/customers?limit=1000")).body.customers).toEqual([]);

    const pair = "pair \ud83d\ude00";
    const created = await rest("POST", "/customers", JSON.stringify({ name: pair }));
    expect(created.status).toBe(201);
    expect((await rest("GET", `/customers/${created.body.customer.id}`)).body.customer.name).toBe(pair);
  });

  it("are refused anywhere in a custom field value, key or string, naming the place", async () => {
    const inString = await rest("POST", "/customers", customerWithValue("In a string", '{"k":["ok","\\udc00"]}'));
    expectError(inString, 400, "BAD_REQUEST");
    expect(inString.body.issues).toEqual([{ path: "customFields.0.value.k.1", message: LONE }]);
    const inKey = await trpc("customers.create", customerWithValue("In a key", '{"\\ud800":1}'));
    expect(inKey.data.issues).toEqual([{ path: "customFields.0.value.\ud800", message: `key ${LONE}` }]);
  });

  it("are refused in event data keys and values, and nothing of the batch is stored", async () => {
    const batch = (data: string) =>
      `{"events":[{"name":"n","timestamp":"2024-05-01T08:00:00Z","customerAlias":"a","ref":"lone","data":${data}}]}`;
    const inValue = await rest("POST", "/events", batch('{"k":"v\\udfff"}'));
    expectError(inValue, 400, "BAD_REQUEST");
    expect(inValue.body.issues).toEqual([{ path: "events.0.data.k", message: LONE }]);
    const inKey = await trpc("events.ingest", batch('{"k\\ud800":"v"}'));
    expect([inKey.status, inKey.data.issues]).toEqual([
      400,
      [{ path: "events.0.data.k\ud800", message: `key ${LONE}` }],
    ]);
  });

  it("cannot arrive as bytes that are not UTF-8: such a REST body is refused, not read as U+FFFD", async () => {
    const bytes = Buffer.concat([Buffer.from('{"name":"bad '), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]);
    const refused = await rest("POST", "/customers", bytes);
    expectError(refused, 400, "BAD_REQUEST");
    expect(refused.body.message).toBe("Request body is not valid UTF-8");
  });
});

describe("numbers in custom field values", () => {
  it("beyond a double's range (1e400 reads as Infinity) are refused, naming their place (REST, tRPC)", async () => {
    const top = await rest("POST", "/customers", customerWithValue("Too large", "1e400"));
    expectError(top, 400, "BAD_REQUEST");
    expect(top.body.issues).toEqual([
      { path: "customFields.0.value", message: "is beyond the range of a double (IEEE 754)" },
    ]);
    const nested = await trpc("customers.create", customerWithValue("Too small", '{"a":[1,-1e999]}'));
    expect([nested.status, nested.data.issues]).toEqual([
      400,
      [{ path: "customFields.0.value.a.1", message: "is beyond the range of a double (IEEE 754)" }],
    ]);
  });

  it("within the range are stored and read back as sent, the largest and smallest included", async () => {
    const value = { largest: 1.7976931348623157e308, smallest: 5e-324, negative: -2.5, whole: 12 };
    const created = await rest("POST", "/customers", customerWithValue("Edges", JSON.stringify(value)));
    expect(created.status).toBe(201);
    const read = await rest("GET", `/customers/${created.body.customer.id}`);
    expect(read.body.customer.customFields[0].value).toEqual(value);
  });
});

describe("__proto__ keys", () => {
  it("as an event data key are refused, naming it, over REST and tRPC (a record cannot hold one)", async () => {
    const body =
      '{"events":[{"name":"n","timestamp":"2024-05-01T08:00:00Z","customerAlias":"a","ref":"proto",' +
      '"data":{"__proto__":"x","k":"v"}}]}';
    const refused = await rest("POST", "/events", body);
    expectError(refused, 400, "BAD_REQUEST");
    expect(refused.body.issues).toEqual([
      { path: "events.0.data.__proto__", message: "`__proto__` cannot be a data key" },
    ]);
    const viaTrpc = await trpc("events.ingest", body);
    expect([viaTrpc.status, viaTrpc.data.issues.map(({ path }: { path: string }) => path)]).toEqual([
      400,
      ["events.0.data.__proto__"],
    ]);
    const stored = await rest("GET", "/events?startTime=2024-05-01T00:00:00Z&endTime=2024-05-02T00:00:00Z");
    expect(stored.body.events).toEqual([]);
  });

  it("inside a custom field value are stored and read back as sent", async () => {
    const created = await rest("POST", "/customers", customerWithValue("Proto", '{"__proto__":{"a":1},"b":2}'));
    expect(created.status).toBe(201);
    const read = await fetch(`${server.url}/customers/${created.body.customer.id}`, {
      headers: { authorization: `Bearer ${account.token}` },
    });
    expect(await read.text()).toContain('"value":{"__proto__":{"a":1},"b":2}');
  });
});

describe("limit in a query string", () => {
  it.each(["0x10", "1e1", " 16", "16.0", "+16", ""])("%j is refused, naming it: decimal digits only", async (limit) => {
    const response = await rest("GET", `/customers?limit=${encodeURIComponent(limit)}`);
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues.map(({ path }: { path: string }) => path)).toEqual(["limit"]);
  });

  it("in decimal digits is read as written, over REST and tRPC; tRPC's own strings follow the same rule", async () => {
    for (const name of ["L1", "L2", "L3"]) await rest("POST", "/customers", JSON.stringify({ name }));
    expect((await rest("GET", "/customers?limit=02")).body.customers).toHaveLength(2);
    expect((await trpc("customers.list", '{"limit":2}', "GET")).result.customers).toHaveLength(2);
    const hex = await trpc("customers.list", '{"limit":"0x10"}', "GET");
    expect([hex.status, hex.data.issues.map(({ path }: { path: string }) => path)]).toEqual([400, ["limit"]]);
  });
});

describe("query strings", () => {
  const window = "startTime=2024-05-01T00:00:00Z&endTime=2024-05-02T00:00:00Z";

  it("refuse percent-escapes that are not UTF-8, naming the parameter, rather than reading U+FFFD", async () => {
    for (const [query, parameter] of [
      [`${window}&eventName=%FF`, "eventName"],
      [`${window}&eventName=lone%ED%A0%80`, "eventName"],
      [`${window}&%FF=x`, "%FF"],
    ]) {
      const response = await rest("GET", `/events?${query}`);
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues, query).toEqual([{ path: parameter, message: "is not valid percent-encoded UTF-8" }]);
    }
  });

  it("read UTF-8 escapes and `+` as the characters they stand for", async () => {
    // Another day than the other tests' windows: this event is in no list they read.
    const batch = {
      events: [{ name: "café au lait", timestamp: "2024-06-01T08:00:00Z", customerAlias: "a", ref: "q" }],
    };
    expect((await rest("POST", "/events", JSON.stringify(batch))).status).toBe(200);
    const june = "startTime=2024-06-01T00:00:00Z&endTime=2024-06-02T00:00:00Z";
    const found = await rest("GET", `/events?${june}&eventName=caf%C3%A9+au+lait`);
    expect(found.body.events.map(({ name }: { name: string }) => name)).toEqual(["café au lait"]);
  });
});
