import { type Api, createApi } from "./api.js";

/** The tab's session storage: gone when the tab closes, never in a URL or a cookie. */
const TOKEN_KEY = "billing-console-token";

export type Scope = "read" | "write" | "finance";

export interface Session {
  token: string;
  scope: Scope;
  /** The account the token acts for (its documents' seller). */
  accountId: string;
  api: Api;
}

export const storedToken = () => sessionStorage.getItem(TOKEN_KEY) ?? undefined;
export const forgetToken = () => sessionStorage.removeItem(TOKEN_KEY);

/** Checks a token and learns its scope (`GET /token`) without changing anything: a bad token is the API's 401. */
export async function signIn(token: string): Promise<Session> {
  const api = createApi(token);
  const { token: current } = await api.token.current.query({});
  return keep({ token, scope: current.scope, accountId: current.accountId, api });
}

function keep(session: Session): Session {
  sessionStorage.setItem(TOKEN_KEY, session.token);
  return session;
}
