import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { SCOPE_LABELS, SCOPE_REASON_ID, SCOPE_REASONS } from "./components/write-button.js";
import { AlertsPage } from "./pages/alerts.js";
import { BillingRunsPage } from "./pages/billing-runs.js";
import { CouponsPage } from "./pages/coupons.js";
import { CustomerPage } from "./pages/customer.js";
import { CustomersPage } from "./pages/customers.js";
import { InvoicePage } from "./pages/invoice.js";
import { InvoicesPage } from "./pages/invoices.js";
import { MetersPage } from "./pages/meters.js";
import { OverviewPage } from "./pages/overview.js";
import { PaymentsPage } from "./pages/payments.js";
import { PlanPage, PlansPage } from "./pages/plans.js";
import { SignIn } from "./pages/sign-in.js";
import { TaxRatesPage } from "./pages/tax-rates.js";
import { WebhooksPage } from "./pages/webhooks.js";
import { Link, usePath } from "./router.js";
import { forgetToken, type Session, signIn, storedToken } from "./session.js";
import { SessionContext } from "./session-context.js";

const SECTIONS = [
  { path: "/overview", label: "Overview" },
  { path: "/invoices", label: "Invoices" },
  { path: "/customers", label: "Customers" },
  { path: "/plans", label: "Plans" },
  { path: "/coupons", label: "Coupons" },
  { path: "/meters", label: "Meters" },
  { path: "/tax-rates", label: "Tax rates" },
  { path: "/alerts", label: "Alerts" },
  { path: "/webhooks", label: "Webhooks" },
  { path: "/billing-runs", label: "Billing runs" },
  { path: "/payments", label: "Payments" },
];

/** The section a path belongs to: the console's root is the overview. */
const pathOfSection = (path: string) => (path === "/" ? "/overview" : `/${path.split("/")[1]}`);

function Page({ path }: { path: string }) {
  const [, section, id] = path.split("/");
  if (section === "customers" && id) return <CustomerPage customerId={decodeURIComponent(id)} />;
  if (section === "invoices" && id) return <InvoicePage invoiceId={decodeURIComponent(id)} />;
  if (section === "invoices") return <InvoicesPage />;
  if (section === "plans" && id) return <PlanPage planId={decodeURIComponent(id)} />;
  if (section === "plans") return <PlansPage />;
  if (section === "coupons") return <CouponsPage />;
  if (section === "meters") return <MetersPage />;
  if (section === "tax-rates") return <TaxRatesPage />;
  if (section === "alerts") return <AlertsPage />;
  if (section === "webhooks") return <WebhooksPage />;
  if (section === "billing-runs") return <BillingRunsPage />;
  if (section === "payments") return <PaymentsPage />;
  if (section === "customers") return <CustomersPage />;
  if (section === "" || section === "overview") return <OverviewPage />;
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        The console has no page at <code>{path}</code>. <Link to="/customers">Go to the customers</Link>.
      </p>
    </section>
  );
}

export function App() {
  const path = usePath();
  const queryClient = useQueryClient();
  const [session, setSession] = useState<Session>();
  // A reload keeps the tab's token: it is checked again before any page shows.
  const [resuming, setResuming] = useState(() => storedToken() !== undefined);
  // After a navigation, keyboard and screen reader users start at the new page, not at a link that is gone.
  const main = useRef<HTMLElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: moves the focus when the path changes
  useEffect(() => main.current?.focus(), [path]);
  useEffect(() => {
    const token = storedToken();
    if (!token) return;
    signIn(token)
      .then(setSession, forgetToken)
      .finally(() => setResuming(false));
  }, []);

  if (resuming) return <p role="status">Checking your token…</p>;
  if (!session) return <SignIn onSignedIn={setSession} />;
  const signOut = () => {
    forgetToken();
    queryClient.clear();
    setSession(undefined);
  };
  return (
    <SessionContext.Provider value={session}>
      <header className="top">
        <span className="brand">Billing console</span>
        <nav aria-label="Sections">
          {SECTIONS.map((section) => (
            <Link
              key={section.path}
              to={section.path}
              aria-current={pathOfSection(path) === section.path ? "page" : undefined}
            >
              {section.label}
            </Link>
          ))}
        </nav>
        <span className="scope">{SCOPE_LABELS[session.scope]}</span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      {session.scope !== "write" && (
        <p id={SCOPE_REASON_ID} className="notice">
          {SCOPE_REASONS[session.scope]}
        </p>
      )}
      <main ref={main} tabIndex={-1}>
        <Page path={path} />
      </main>
    </SessionContext.Provider>
  );
}
