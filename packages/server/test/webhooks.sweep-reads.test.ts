import type { CommandStartedEvent } from "mongodb";
import { describe, expect, it } from "vitest";
import { watchEveryClient } from "../src/db/connect.js";
import { sweepChanges } from "../src/services/webhook-sweep.js";
import { billingAccount } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/**
 * What a webhook sweep reads (docs/decisions.md, "A sweep reads each account's enabled endpoints once"; issue 47):
 * every sweep reads again the last minutes of changes, so its reads per change are a month-end's cost.
 */
const commands: CommandStartedEvent[] = [];
watchEveryClient((client) => client.on("commandStarted", (event) => commands.push(event)));

const server = useTestServer();

describe("the webhook sweep", () => {
  it("reads an account's enabled endpoints once, whatever the number of its changes", async () => {
    const account = await billingAccount(server);
    const { endpoint } = await account.post("/webhook-endpoints", { url: "https://hooks.example.com/swept" }, 201);
    for (const name of ["A", "B", "C", "D"]) await account.post("/customers", { name }, 201);
    const from = commands.length;
    await sweepChanges(server.service.repositories);
    const endpointReads = commands
      .slice(from)
      .filter(({ command }) => command.find === "webhookEndpoints")
      .filter(({ command }) => JSON.stringify(command.filter).includes(account.accountId));
    // Five changes of the account in the window (its first customer and these four): one read of its endpoints.
    expect(endpointReads).toHaveLength(1);
    // The requests recorded each customer's message: the sweep, reading them again, opens no second delivery.
    const { deliveries } = (
      await server.rest("GET", `/webhook-endpoints/${endpoint.id}/deliveries?limit=100`, { token: account.token })
    ).body;
    expect(
      deliveries.filter((delivery: { eventType: string }) => delivery.eventType === "customer.created"),
    ).toHaveLength(4);
  });
});
