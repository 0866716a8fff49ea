import { expect } from "vitest";

/** A REST error with this status and code, in the one documented body shape `{ code, message, issues? }`. */
export function expectError(response: { status: number; body: any }, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.body).toMatchObject({ code, message: expect.any(String) });
  expect(Object.keys(response.body).sort()).toEqual(
    response.body.issues ? ["code", "issues", "message"] : ["code", "message"],
  );
}
