import { describe, expect, it } from "vitest";
import { AuthenticationError, createBillingClient } from "../src/index.js";
import { newClient, rejectionOf, useTestServer } from "./helpers.js";

const ctx = useTestServer();

describe("token", () => {
  it("tells which token it calls with: its account and scope; a bad token is an AuthenticationError", async () => {
    const { client, accountId } = await newClient(ctx.server);
    expect(await client.token.current()).toEqual({ id: expect.any(String), accountId, scope: "write" });
    const stranger = createBillingClient({ baseUrl: ctx.server.url, token: "bill_unknown" });
    expect(await rejectionOf(stranger.token.current())).toBeInstanceOf(AuthenticationError);
  });
});
