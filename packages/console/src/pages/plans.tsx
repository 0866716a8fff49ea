import { useQuery } from "@tanstack/react-query";
import type { Outputs } from "../api.js";
import { CustomerName } from "../components/customer-name.js";
import { type Column, DataTable } from "../components/data-table.js";
import { Pager, useCursorPages } from "../components/paging.js";
import { Panel } from "../components/panel.js";
import { Empty, QueryStatus } from "../components/status.js";
import { creditGrantText, productTermsText } from "../deal-text.js";
import { formatDate, formatMoney } from "../format.js";
import { Link } from "../router.js";
import { useSession } from "../session-context.js";
import { NewPlanForm, PlanActions } from "./plan-forms.js";
import { PlanMigration } from "./plan-migration.js";
import { PlanSimulation } from "./plan-simulation.js";

const PAGE_SIZE = 20;

type Plan = Outputs["plans"]["list"]["plans"][number];
type Product = Plan["products"][number];
type Subscriber = Outputs["plans"]["contracts"]["contracts"][number];

/** A product's price in words: `FLAT 49.00 USD`, `PER_UNIT 0.002 USD`, a commitment, or its tiers' count. */
function priceOf(product: Product, currency: string): string {
  const { pricing, commitment } = product;
  if (commitment) return `${commitment.units} units for ${formatMoney(commitment.price, currency)}`;
  if (!pricing) return "—";
  if ("price" in pricing) return `${pricing.type} ${formatMoney(pricing.price, currency)}`;
  return `${pricing.type}, ${pricing.tiers.length} tiers`;
}

const PLAN_COLUMNS: Column<Plan>[] = [
  { name: "Key", cell: (plan) => <Link to={`/plans/${encodeURIComponent(plan.key)}`}>{plan.key}</Link> },
  { name: "Name", cell: (plan) => plan.name },
  { name: "Status", cell: (plan) => plan.status },
  { name: "Version", numeric: true, cell: (plan) => plan.version },
  {
    name: "Prices",
    cell: (plan) =>
      plan.products.map((product) => `${product.displayName}: ${priceOf(product, plan.currency)}`).join("; "),
  },
  { name: "Created", cell: (plan) => formatDate(plan.createdAt) },
];

export function PlansPage() {
  const { api } = useSession();
  const pages = useCursorPages();
  const plans = useQuery({
    queryKey: ["plans", "list", pages.cursor],
    queryFn: () => api.plans.list.query({ limit: PAGE_SIZE, cursor: pages.cursor }),
  });
  return (
    <section>
      <h1>Plans</h1>
      <NewPlanForm />
      <QueryStatus query={plans} what="plans" />
      {plans.data &&
        (plans.data.plans.length === 0 ? (
          <Empty>No plans yet: create one above.</Empty>
        ) : (
          <>
            <DataTable
              rows={plans.data.plans}
              columns={PLAN_COLUMNS}
              rowKey={(plan) => plan.id}
              caption="The price catalog: each plan's current version"
            />
            <Pager label="Plans" pages={pages} nextCursor={plans.data.nextCursor} total={plans.data.total} />
          </>
        ))}
    </section>
  );
}

const SUBSCRIBER_COLUMNS: Column<Subscriber>[] = [
  { name: "Contract", cell: (contract) => contract.name },
  {
    name: "Customer",
    cell: (contract) => <CustomerName customerId={contract.customerId} />,
  },
  { name: "Version", numeric: true, cell: (contract) => contract.plan?.version ?? "—" },
  { name: "Overrides", cell: (contract) => contract.overrides?.map((o) => o.product).join(", ") || "—" },
  { name: "Status", cell: (contract) => contract.status },
];

/** One plan: its current terms, its versions with their subscribers' counts, and its subscribers. */
export function PlanPage({ planId }: { planId: string }) {
  const { api } = useSession();
  const pages = useCursorPages();
  const plan = useQuery({ queryKey: ["plans", planId], queryFn: () => api.plans.get.query({ planId }) });
  const subscribers = useQuery({
    queryKey: ["plans", planId, "contracts", pages.cursor],
    queryFn: () => api.plans.contracts.query({ planId, limit: PAGE_SIZE, cursor: pages.cursor }),
  });
  const shown = plan.data?.plan;
  return (
    <section>
      <h1>{shown ? `${shown.name} (${shown.key})` : "Plan"}</h1>
      <QueryStatus query={plan} what="the plan" />
      {shown && (
        <PlanActions
          key={shown.version}
          planId={shown.key}
          archived={shown.status === "ARCHIVED"}
          products={shown.products}
        />
      )}
      {shown && (
        <PlanSimulation key={shown.version} planId={shown.key} currency={shown.currency} products={shown.products} />
      )}
      {shown && <PlanMigration key={shown.version} planId={shown.key} currentVersion={shown.version} />}
      {shown && (
        <div className="grid">
          <Panel id="terms" title={`Version ${shown.version} (current), ${shown.status}`}>
            <DataTable
              rows={shown.products}
              columns={[
                { name: "Product", cell: (product) => product.displayName },
                { name: "Price", cell: (product) => priceOf(product, shown.currency) },
                { name: "Meter", cell: (product) => product.catalogProductId ?? "—" },
                {
                  name: "Deal terms",
                  cell: (product) => productTermsText(product, shown.currency).join(" · ") || "—",
                },
              ]}
              rowKey={(product) => product.displayName}
            />
            {(shown.creditGrants?.length ?? 0) > 0 && (
              <ul aria-label="Credits each contract is granted">
                {shown.creditGrants?.map((grant, index) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a version's grants are a fixed list
                  <li key={index}>{creditGrantText(grant, shown.currency)}</li>
                ))}
              </ul>
            )}
          </Panel>
          <Panel id="versions" title="Versions">
            <DataTable
              rows={shown.versions ?? []}
              columns={[
                { name: "Version", numeric: true, cell: (version) => version.version },
                { name: "Created", cell: (version) => formatDate(version.createdAt) },
                { name: "Contracts", numeric: true, cell: (version) => version.contracts },
              ]}
              rowKey={(version) => String(version.version)}
            />
          </Panel>
          <Panel id="subscribers" title="Subscribers" wide>
            <QueryStatus query={subscribers} what="the subscribers" />
            {subscribers.data &&
              (subscribers.data.contracts.length === 0 ? (
                <Empty>No contract follows this plan.</Empty>
              ) : (
                <>
                  <DataTable
                    rows={subscribers.data.contracts}
                    columns={SUBSCRIBER_COLUMNS}
                    rowKey={(contract) => contract.id}
                  />
                  <Pager
                    label="Subscribers"
                    pages={pages}
                    nextCursor={subscribers.data.nextCursor}
                    total={subscribers.data.total}
                  />
                </>
              ))}
          </Panel>
        </div>
      )}
    </section>
  );
}
