import { type FormEvent, useState } from "react";
import { ProblemNotice } from "../components/status.js";
import { type Session, signIn } from "../session.js";

export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<unknown>();
  const [checking, setChecking] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setChecking(true);
    setError(undefined);
    try {
      onSignedIn(await signIn(token.trim()));
    } catch (caught) {
      setError(caught);
    } finally {
      setChecking(false);
    }
  };
  return (
    <main className="sign-in">
      <h1>Billing console</h1>
      <p>Sign in with an API token of your account. It stays in this tab only, and goes when the tab closes.</p>
      <form onSubmit={submit}>
        <label htmlFor="token">API token</label>
        <input
          id="token"
          type="password"
          autoComplete="off"
          required
          value={token}
          onChange={(event) => setToken(event.target.value)}
        />
        <button type="submit" disabled={checking || token.trim() === ""}>
          {checking ? "Checking…" : "Sign in"}
        </button>
      </form>
      {error !== undefined && <ProblemNotice error={error} />}
    </main>
  );
}
