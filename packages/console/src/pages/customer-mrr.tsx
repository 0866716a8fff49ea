import { useQuery } from "@tanstack/react-query";
import { useSession } from "../session-context.js";
import { Mrr } from "./mrr-panel.js";

/** Contracts read to find the currencies a customer's MRR is in: one page, bounded. */
const CONTRACTS_READ = 100;

/**
 * The customer's own MRR (GET /reports/mrr?customerId=), one panel per currency of its contracts (those of the first
 * 100), none when it has no contract.
 */
export function CustomerMrr({ customerId }: { customerId: string }) {
  const { api } = useSession();
  const contracts = useQuery({
    queryKey: ["contracts", customerId, "currencies"],
    queryFn: () => api.contracts.list.query({ customerId, limit: CONTRACTS_READ }),
  });
  const currencies = [...new Set((contracts.data?.contracts ?? []).map((contract) => contract.currency))].sort();
  return (
    <>
      {currencies.map((currency) => (
        <Mrr key={currency} currency={currency} customerId={customerId} />
      ))}
    </>
  );
}
