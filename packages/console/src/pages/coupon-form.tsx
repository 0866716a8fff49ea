import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { Inputs } from "../api.js";
import { Field } from "../components/field.js";
import { ProblemNotice } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { useSession } from "../session-context.js";

type CouponCreate = Inputs["coupons"]["create"];
type DiscountType = CouponCreate["discount"]["type"];

/** `ONCE`, `FOREVER`, or a number of cycles typed in the field beside it. */
type DurationChoice = "ONCE" | "FOREVER" | "CYCLES";

const DURATIONS: [DurationChoice, string][] = [
  ["ONCE", "Once (the next cycle)"],
  ["CYCLES", "A number of cycles"],
  ["FOREVER", "For ever"],
];

/**
 * Creates a coupon (docs/decisions.md, "Coupons"): a PERCENT or AMOUNT discount (an AMOUNT in one currency), how long
 * a redemption applies, and optionally how many redemptions and until when. The API checks every rule and names the
 * field it refuses.
 */
export function NewCouponForm() {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [code, setCode] = useState("");
  const [type, setType] = useState<DiscountType>("PERCENT");
  const [value, setValue] = useState("");
  const [currency, setCurrency] = useState("");
  const [duration, setDuration] = useState<DurationChoice>("ONCE");
  const [cycles, setCycles] = useState("");
  const [maxRedemptions, setMaxRedemptions] = useState("");
  const [redeemBy, setRedeemBy] = useState("");
  const create = useMutation({
    mutationFn: () =>
      api.coupons.create.mutate({
        code: code.trim(),
        discount: { type, value: Number(value) },
        duration: duration === "CYCLES" ? { cycles: Number(cycles) } : duration,
        ...(currency.trim() && { currency: currency.trim().toUpperCase() }),
        ...(maxRedemptions.trim() && { maxRedemptions: Number(maxRedemptions) }),
        ...(redeemBy.trim() && { redeemBy: redeemBy.trim() }),
      }),
    onSuccess: () => {
      for (const clear of [setCode, setValue, setCurrency, setCycles, setMaxRedemptions, setRedeemBy]) clear("");
      return queryClient.invalidateQueries({ queryKey: ["coupons"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const text = (id: string, label: string, path: string, state: [string, (value: string) => void], hint = "") => (
    <Field id={id} label={label} path={path} error={create.error}>
      {(control) => (
        <input {...control} value={state[0]} placeholder={hint} onChange={(event) => state[1](event.target.value)} />
      )}
    </Field>
  );
  return (
    <details className="panel">
      <summary>New coupon</summary>
      <form className="stacked" onSubmit={submit} aria-label="New coupon">
        {text("coupon-code", "Code", "code", [code, setCode])}
        <Field id="coupon-type" label="Discount" path="discount.type" error={create.error}>
          {(control) => (
            <select {...control} value={type} onChange={(event) => setType(event.target.value as DiscountType)}>
              <option value="PERCENT">Percent off</option>
              <option value="AMOUNT">Amount off</option>
            </select>
          )}
        </Field>
        {text("coupon-value", "Value (percent, or amount)", "discount.value", [value, setValue])}
        {text("coupon-currency", "Currency (AMOUNT only)", "currency", [currency, setCurrency], "USD")}
        <Field id="coupon-duration" label="Applies" path="duration" error={create.error}>
          {(control) => (
            <select
              {...control}
              value={duration}
              onChange={(event) => setDuration(event.target.value as DurationChoice)}
            >
              {DURATIONS.map(([choice, label]) => (
                <option key={choice} value={choice}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
        {duration === "CYCLES" && text("coupon-cycles", "Cycles", "duration.cycles", [cycles, setCycles])}
        {text("coupon-max", "Redemptions at most (optional)", "maxRedemptions", [maxRedemptions, setMaxRedemptions])}
        {text("coupon-redeem-by", "Redeem by (ISO date-time, optional)", "redeemBy", [redeemBy, setRedeemBy])}
        <WriteButton type="submit" disabled={create.isPending || code.trim() === "" || value === ""}>
          Create coupon
        </WriteButton>
        {create.error && <ProblemNotice error={create.error} />}
      </form>
    </details>
  );
}
