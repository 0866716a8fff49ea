import { describe, expect, it } from "vitest";
import { API_VERSION } from "../src/index.js";
import { useTestServer } from "./helpers.js";

const context = useTestServer();

describe("API_VERSION", () => {
  it("is the version the server serves: its API-Version header and its document's info.version", async () => {
    expect(API_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    const response = await fetch(`${context.server.url}/openapi.json`);
    expect(response.headers.get("api-version")).toBe(API_VERSION);
    expect(((await response.json()) as { info: { version: string } }).info.version).toBe(API_VERSION);
  });
});
