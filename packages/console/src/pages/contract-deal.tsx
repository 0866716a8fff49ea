import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { Outputs } from "../api.js";
import { DataTable } from "../components/data-table.js";
import { Day } from "../components/day.js";
import { Field } from "../components/field.js";
import { Empty, ProblemNotice, QueryStatus } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { useSession } from "../session-context.js";
import { discountText, durationText } from "./coupons.js";
import { DealTermsForm } from "./deal-terms-form.js";

type Contract = Outputs["contracts"]["list"]["contracts"][number];

/** The contract's PER_SEAT products, by displayName: what `POST /contracts/{id}/seats` names. */
const seatProductsOf = (contract: Contract) =>
  (contract.products ?? []).filter((product) => product.seats !== undefined).map((product) => product.displayName);

/** A UTC day typed in a date field, as the API's instant: its midnight at UTC. */
const dayStart = (day: string) => `${day}T00:00:00Z`;

/**
 * A contract's seats: the schedule as `GET /contracts/{id}/seats` answers it, and a form for a change from a UTC day
 * (a change after the prepaid cycle was issued shows as adjusted on the next invoice: "+3 seats from Apr 11", or a
 * refund "−10 seats from Apr 21").
 */
function Seats({ contract, products }: { contract: Contract; products: string[] }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [product, setProduct] = useState(products[0] ?? "");
  const [quantity, setQuantity] = useState("");
  const [effectiveFrom, setEffectiveFrom] = useState("");
  const schedule = useQuery({
    queryKey: ["seats", contract.id],
    queryFn: () => api.contracts.seats.query({ contractId: contract.id }),
  });
  const change = useMutation({
    mutationFn: () =>
      api.contracts.changeSeats.mutate({
        contractId: contract.id,
        product,
        quantity: Number(quantity),
        effectiveFrom: effectiveFrom ? dayStart(effectiveFrom) : "",
      }),
    onSuccess: () => {
      setQuantity("");
      setEffectiveFrom("");
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: ["seats", contract.id] }),
        queryClient.invalidateQueries({ queryKey: ["contracts", contract.customerId] }),
      ]);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate();
  };
  const id = (name: string) => `seats-${name}-${contract.id}`;
  return (
    <>
      <QueryStatus query={schedule} what="the seats" />
      {schedule.data && (
        <DataTable
          rows={schedule.data.seats}
          caption="Seats, from the contract's start, then each change in the order entered"
          rowKey={(entry, index) => `${entry.product}-${index}`}
          columns={[
            { name: "Product", cell: (entry) => entry.product },
            { name: "Seats", numeric: true, cell: (entry) => entry.quantity },
            { name: "From", cell: (entry) => <Day iso={entry.effectiveFrom} /> },
            { name: "Entered", cell: (entry) => (entry.enteredAt ? <Day iso={entry.enteredAt} /> : "at the start") },
            {
              name: "Billed",
              cell: (entry) => (entry.adjustedOnNextInvoice ? "adjusted on the next invoice" : "in its cycle"),
            },
          ]}
        />
      )}
      <form className="stacked" onSubmit={submit} aria-label={`Change seats of ${contract.name}`}>
        <Field id={id("product")} label="Product" path="product" error={change.error}>
          {(control) => (
            <select {...control} value={product} onChange={(event) => setProduct(event.target.value)}>
              {products.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id={id("quantity")} label="Seats" path="quantity" error={change.error}>
          {(control) => (
            <input
              {...control}
              inputMode="numeric"
              value={quantity}
              onChange={(event) => setQuantity(event.target.value)}
            />
          )}
        </Field>
        <Field id={id("from")} label="From (UTC day)" path="effectiveFrom" error={change.error}>
          {(control) => (
            <input
              {...control}
              type="date"
              value={effectiveFrom}
              onChange={(event) => setEffectiveFrom(event.target.value)}
            />
          )}
        </Field>
        <WriteButton type="submit" disabled={change.isPending || quantity === ""}>
          Change seats
        </WriteButton>
        {change.error && <ProblemNotice error={change.error} />}
      </form>
    </>
  );
}

/** The coupons applied to a contract, and a form applying one by its code (409s show the API's reason). */
function Coupons({ contract }: { contract: Contract }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [code, setCode] = useState("");
  const applied = useQuery({
    queryKey: ["contract-coupons", contract.id],
    queryFn: () => api.coupons.ofContract.query({ contractId: contract.id }),
  });
  const apply = useMutation({
    mutationFn: () => api.coupons.redeem.mutate({ contractId: contract.id, code: code.trim() }),
    onSuccess: () => {
      setCode("");
      return queryClient.invalidateQueries({ queryKey: ["contract-coupons", contract.id] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    apply.mutate();
  };
  return (
    <>
      <QueryStatus query={applied} what="the coupons applied" />
      {applied.data &&
        (applied.data.redemptions.length === 0 ? (
          <Empty>No coupon applied.</Empty>
        ) : (
          <DataTable
            rows={applied.data.redemptions}
            caption="Coupons applied"
            rowKey={(redemption) => redemption.id}
            columns={[
              { name: "Code", cell: (redemption) => <code>{redemption.code}</code> },
              { name: "Discount", cell: (redemption) => discountText(redemption.discount, redemption.currency) },
              { name: "Applies", cell: (redemption) => durationText(redemption.duration) },
              { name: "Applied", cell: (redemption) => <Day iso={redemption.redeemedAt} /> },
            ]}
          />
        ))}
      <form className="stacked" onSubmit={submit} aria-label={`Apply a coupon to ${contract.name}`}>
        <Field id={`coupon-code-${contract.id}`} label="Coupon code" path="code" error={apply.error}>
          {(control) => <input {...control} value={code} onChange={(event) => setCode(event.target.value)} />}
        </Field>
        <WriteButton type="submit" disabled={apply.isPending || code.trim() === ""}>
          Apply coupon
        </WriteButton>
        {apply.error && <ProblemNotice error={apply.error} />}
      </form>
    </>
  );
}

/**
 * A contract's deal changes in the console (docs/decisions.md, "Deal terms"): its seats (for PER_SEAT products), its
 * coupons and its own deal terms from a day, read only once opened, so that a list of contracts asks for nothing more until one is looked at.
 */
export function ContractDeal({ contract }: { contract: Contract }) {
  const [open, setOpen] = useState(false);
  const products = seatProductsOf(contract);
  return (
    <details onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Deal changes: {contract.name}</summary>
      {open && (
        <div className="stacked">
          {products.length > 0 && <Seats contract={contract} products={products} />}
          <Coupons contract={contract} />
          <DealTermsForm contract={contract} />
        </div>
      )}
    </details>
  );
}
