import { type Api, createApi, problemOf } from "./api.js";

/** The tab's session storage: gone when the tab closes, never in a URL or a cookie. */
const TOKEN_KEY = "billing-console-token";

export type Scope = "read" | "write";

export interface Session {
  token: string;
  scope: Scope;
  api: Api;
}

export const storedToken = () => sessionStorage.getItem(TOKEN_KEY) ?? undefined;
export const forgetToken = () => sessionStorage.removeItem(TOKEN_KEY);

/**
 * Checks a token and learns its scope without changing anything. The API has no "who am I" call, so the console
 * sends a customer creation with an empty body: authentication (401) and the scope check (403 for a read token) run
 * before the input is read, and a write token gets the 400 of the missing name, so nothing is ever created.
 */
export async function signIn(token: string): Promise<Session> {
  const api = createApi(token);
  try {
    await api.customers.create.mutate({} as never);
  } catch (error) {
    const problem = problemOf(error);
    if (problem.code === "FORBIDDEN") return keep({ token, scope: "read", api });
    if (problem.code === "BAD_REQUEST") return keep({ token, scope: "write", api });
    throw error;
  }
  throw new Error("The sign-in check created a customer: the API no longer validates before writing");
}

function keep(session: Session): Session {
  sessionStorage.setItem(TOKEN_KEY, session.token);
  return session;
}
