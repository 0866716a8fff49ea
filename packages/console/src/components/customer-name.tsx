import { useQuery } from "@tanstack/react-query";
import type { Outputs } from "../api.js";
import { Link } from "../router.js";
import { useSession } from "../session-context.js";

type BillingStatus = Outputs["invoices"]["get"]["invoice"]["billingStatus"];

/** What the customer still owes, in words a finance team uses: the API's `billingStatus` of a finalized invoice. */
export const PAYMENT_STATES: Record<BillingStatus, string> = {
  None: "Unpaid",
  PartiallyPaid: "Partially paid",
  Paid: "Paid",
  Uncollectible: "Uncollectible",
};

/** A link to the customer, by its name once read (its id until then). */
export function CustomerName({ customerId }: { customerId: string }) {
  const { api } = useSession();
  const customer = useQuery({
    queryKey: ["customer", customerId],
    queryFn: () => api.customers.get.query({ customerId }),
  });
  return <Link to={`/customers/${encodeURIComponent(customerId)}`}>{customer.data?.customer.name ?? customerId}</Link>;
}
