import { useQuery } from "@tanstack/react-query";
import { QueryStatus } from "../components/status.js";
import { useSession } from "../session-context.js";
import { CustomerCollection } from "./customer-collection.js";
import { CustomerContracts } from "./customer-contracts.js";
import { CustomerCredits } from "./customer-credits.js";
import { EditCustomerForm } from "./customer-edit-form.js";
import { CustomerInvoices } from "./customer-invoices.js";
import { CustomerLive } from "./customer-live.js";
import { CustomerMrr } from "./customer-mrr.js";
import { EventExplain } from "./event-explain.js";
import { UsageChart } from "./usage-chart.js";

export function CustomerPage({ customerId }: { customerId: string }) {
  const { api } = useSession();
  const customer = useQuery({
    queryKey: ["customer", customerId],
    queryFn: () => api.customers.get.query({ customerId }),
  });
  if (!customer.data) return <QueryStatus query={customer} what="the customer" />;
  const { id, name, externalId, aliases } = customer.data.customer;
  return (
    <section>
      <h1>{name}</h1>
      <dl className="facts">
        <dt>Id</dt>
        <dd>
          <code>{id}</code>
        </dd>
        <dt>External id</dt>
        <dd>{externalId ?? "—"}</dd>
        <dt>Aliases</dt>
        <dd>{aliases?.join(", ") || "—"}</dd>
      </dl>
      <div className="grid">
        <CustomerLive customerId={id} />
        <CustomerContracts customerId={id} />
        <CustomerInvoices customerId={id} />
        <CustomerCredits customerId={id} />
        <CustomerMrr customerId={id} />
        <CustomerCollection customer={customer.data.customer} />
        <EventExplain />
        <UsageChart customerId={id} />
        <EditCustomerForm customer={customer.data.customer} />
      </div>
    </section>
  );
}
