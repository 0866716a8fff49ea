import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { Outputs } from "../api.js";
import { type Column, DataTable } from "../components/data-table.js";
import { Day } from "../components/day.js";
import { Pager, useCursorPages } from "../components/paging.js";
import { Panel } from "../components/panel.js";
import { Empty, QueryStatus } from "../components/status.js";
import { creditGrantText } from "../deal-text.js";
import { formatMoney } from "../format.js";
import { useSession } from "../session-context.js";
import { ContractDeal } from "./contract-deal.js";
import { ContractChanges, NewContractForm } from "./contract-forms.js";

const PAGE_SIZE = 10;

type Contract = Outputs["contracts"]["list"]["contracts"][number];

const CONTRACT_COLUMNS: Column<Contract>[] = [
  { name: "Name", cell: (contract) => contract.name },
  { name: "Status", cell: (contract) => contract.status },
  { name: "From", cell: (contract) => <Day iso={contract.startDate} /> },
  {
    name: "Until",
    cell: (contract) =>
      contract.endDate ? (
        <>
          <Day iso={contract.endDate} />
          {renewsAtEnd(contract) && ", then renews"}
        </>
      ) : (
        "open-ended"
      ),
  },
  { name: "Currency", cell: (contract) => contract.currency },
  { name: "Deal terms", cell: (contract) => dealTerms(contract) },
];

/**
 * An auto-renewing contract still running renews for another term at its end (reads show it renewed once that end
 * has passed), and its MRR counts on past it; one entered after its end reads Expired and counts none (docs/decisions.md,
 * "MRR").
 */
function renewsAtEnd(contract: Contract): boolean {
  return contract.autoRenewContract && !ENDED.has(contract.status);
}

/** Statuses in which a contract renews no more: ended, or ending at its termination. */
const ENDED = new Set<Contract["status"]>(["Expired", "Terminated", "PendingTermination"]);

/**
 * The deal terms a contract carries, in a few words: its minimum commitment, its discounts and its products' seats,
 * minimums, maximums and discounts (docs/decisions.md, "Deal terms").
 */
function dealTerms(contract: Contract): string {
  const products = contract.products ?? [];
  const parts = [
    ...(contract.minimumCommitment
      ? [
          `minimum ${formatMoney(contract.minimumCommitment.amount, contract.currency)} a ` +
            contract.minimumCommitment.period.toLowerCase(),
        ]
      : []),
    ...products.flatMap((product) => [
      ...(product.seats !== undefined ? [`${product.displayName}: ${product.seats} seats`] : []),
      ...(product.minimum !== undefined
        ? [`${product.displayName} ≥ ${formatMoney(product.minimum, contract.currency)}`]
        : []),
      ...(product.maximum !== undefined
        ? [`${product.displayName} ≤ ${formatMoney(product.maximum, contract.currency)}`]
        : []),
    ]),
  ];
  const discounts =
    (contract.discounts?.length ?? 0) + products.reduce((sum, product) => sum + (product.discounts?.length ?? 0), 0);
  if (discounts > 0) parts.push(`${discounts} discount${discounts === 1 ? "" : "s"}`);
  for (const grant of contract.creditGrants ?? []) parts.push(creditGrantText(grant, contract.currency));
  return parts.length > 0 ? parts.join(" · ") : "—";
}

export function CustomerContracts({ customerId }: { customerId: string }) {
  const { api } = useSession();
  const pages = useCursorPages();
  const contracts = useQuery({
    queryKey: ["contracts", customerId, pages.cursor],
    queryFn: () => api.contracts.list.query({ customerId, limit: PAGE_SIZE, cursor: pages.cursor }),
  });
  const listed = contracts.data?.contracts;
  const [chosen, setChosen] = useState<string>();
  const changing = listed?.find((contract) => contract.id === chosen);
  const columns: Column<Contract>[] = [
    ...CONTRACT_COLUMNS,
    {
      name: "Actions",
      header: <span className="visually-hidden">Actions</span>,
      cell: (contract) => (
        <button
          type="button"
          aria-pressed={contract.id === chosen}
          aria-label={`Change ${contract.name}`}
          onClick={() => setChosen(contract.id === chosen ? undefined : contract.id)}
        >
          Change
        </button>
      ),
    },
  ];
  return (
    <>
      <Panel id="contracts" title="Contracts" wide>
        <QueryStatus query={contracts} what="contracts" />
        {listed &&
          (listed.length === 0 ? (
            <Empty>No contracts.</Empty>
          ) : (
            <>
              <DataTable rows={listed} columns={columns} rowKey={(contract) => contract.id} />
              {listed.map((contract) => (
                <ContractDeal key={contract.id} contract={contract} />
              ))}
            </>
          ))}
        {(contracts.data?.hasMore || pages.page > 1) && (
          <Pager
            label="Contracts"
            pages={pages}
            nextCursor={contracts.data?.nextCursor}
            total={contracts.data?.total}
          />
        )}
        <NewContractForm customerId={customerId} />
      </Panel>
      {changing && <ContractChanges key={changing.id} contract={changing} />}
    </>
  );
}
