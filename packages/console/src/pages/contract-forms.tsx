import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { Inputs, Outputs } from "../api.js";
import { ConfirmButton } from "../components/confirm-button.js";
import { Field, isoMoment, parseJsonField } from "../components/field.js";
import { ProblemNotice } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { useSession } from "../session-context.js";
import { PRODUCTS_EXAMPLE } from "./plan-forms.js";

type Contract = Outputs["contracts"]["list"]["contracts"][number];
type ContractCreate = Inputs["contracts"]["create"];
type ContractUpdate = Inputs["contracts"]["update"];

const DAY_HINT = "An ISO day, e.g. 2026-01-01 (its start at UTC).";
const codesOf = (typed: string) => typed.split(/[,\s]+/).filter(Boolean);

/** Refreshes what shows a customer's contracts (its list, its usage chart's meters). */
const useContractsChanged = (customerId: string) => {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: ["contracts", customerId] });
};

/**
 * A new contract for the customer: from a plan of the catalog (its key, a version or the current one, and the
 * customer's own overrides), or custom (its own products), both as the API takes them.
 */
export function NewContractForm({ customerId }: { customerId: string }) {
  const { api } = useSession();
  const changed = useContractsChanged(customerId);
  const [name, setName] = useState("");
  const [startDate, setStartDate] = useState("");
  const [endDate, setEndDate] = useState("");
  const [fromPlan, setFromPlan] = useState(true);
  const [planId, setPlanId] = useState("");
  const [planVersion, setPlanVersion] = useState("");
  const [overrides, setOverrides] = useState("");
  const [products, setProducts] = useState(PRODUCTS_EXAMPLE);
  const [taxRateCodes, setTaxRateCodes] = useState("");
  const create = useMutation({
    mutationFn: () => {
      const terms: Partial<ContractCreate> = fromPlan
        ? {
            planId: planId.trim(),
            ...(planVersion.trim() && { planVersion: Number(planVersion) }),
            ...(overrides.trim() && {
              overrides: parseJsonField(overrides, "overrides") as ContractCreate["overrides"],
            }),
          }
        : { products: parseJsonField(products, "products") as ContractCreate["products"] };
      return api.contracts.create.mutate({
        customerId,
        name,
        startDate: isoMoment(startDate) ?? "",
        ...(isoMoment(endDate) && { endDate: isoMoment(endDate) }),
        ...(taxRateCodes.trim() && { taxRateCodes: codesOf(taxRateCodes) }),
        ...terms,
      } as ContractCreate);
    },
    onSuccess: () => {
      for (const clear of [setName, setStartDate, setEndDate, setPlanId, setPlanVersion, setOverrides, setTaxRateCodes])
        clear("");
      return changed();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <details>
      <summary>New contract</summary>
      <form className="stacked" onSubmit={submit} aria-label="New contract">
        <Field id="contract-name" label="Name" path="name" error={create.error}>
          {(control) => <input {...control} value={name} onChange={(event) => setName(event.target.value)} />}
        </Field>
        <Field id="contract-start" label="Starts" path="startDate" error={create.error} hint={DAY_HINT}>
          {(control) => <input {...control} value={startDate} onChange={(event) => setStartDate(event.target.value)} />}
        </Field>
        <Field id="contract-end" label="Ends (excluded; empty: open-ended)" path="endDate" error={create.error}>
          {(control) => <input {...control} value={endDate} onChange={(event) => setEndDate(event.target.value)} />}
        </Field>
        <fieldset>
          <legend>Terms</legend>
          <label>
            <input type="radio" name="contract-terms" checked={fromPlan} onChange={() => setFromPlan(true)} /> From a
            plan
          </label>{" "}
          <label>
            <input type="radio" name="contract-terms" checked={!fromPlan} onChange={() => setFromPlan(false)} /> Custom
            products
          </label>
        </fieldset>
        {fromPlan ? (
          <>
            <Field id="contract-plan" label="Plan (key or id)" path="planId" error={create.error}>
              {(control) => <input {...control} value={planId} onChange={(event) => setPlanId(event.target.value)} />}
            </Field>
            <Field id="contract-plan-version" label="Version (empty: current)" path="planVersion" error={create.error}>
              {(control) => (
                <input
                  {...control}
                  inputMode="numeric"
                  size={4}
                  value={planVersion}
                  onChange={(event) => setPlanVersion(event.target.value)}
                />
              )}
            </Field>
            <Field
              id="contract-overrides"
              label="Overrides (optional)"
              path="overrides"
              nested
              error={create.error}
              hint='JSON: the customer&apos;s own terms per product, e.g. [{ "product": "Platform", "discountPercent": 10 }].'
            >
              {(control) => (
                <textarea
                  {...control}
                  rows={3}
                  cols={60}
                  value={overrides}
                  onChange={(event) => setOverrides(event.target.value)}
                />
              )}
            </Field>
          </>
        ) : (
          <Field
            id="contract-products"
            label="Products"
            path="products"
            nested
            error={create.error}
            hint="JSON, as the API takes products."
          >
            {(control) => (
              <textarea
                {...control}
                rows={5}
                cols={60}
                value={products}
                onChange={(event) => setProducts(event.target.value)}
              />
            )}
          </Field>
        )}
        <Field
          id="contract-tax"
          label="Tax rate codes (comma separated; optional)"
          path="taxRateCodes"
          nested
          error={create.error}
        >
          {(control) => (
            <input {...control} value={taxRateCodes} onChange={(event) => setTaxRateCodes(event.target.value)} />
          )}
        </Field>
        <WriteButton type="submit" disabled={create.isPending}>
          Create contract
        </WriteButton>
        {create.error && <ProblemNotice error={create.error} />}
      </form>
    </details>
  );
}

/** New terms from a day: a plan's contract moves to another version of its plan; a custom one takes new products. */
function AmendForm({ contract }: { contract: Contract }) {
  const { api } = useSession();
  const changed = useContractsChanged(contract.customerId);
  const [effectiveFrom, setEffectiveFrom] = useState("");
  const [planVersion, setPlanVersion] = useState("");
  const [products, setProducts] = useState(() => JSON.stringify(contract.products ?? [], null, 1));
  const [endDate, setEndDate] = useState("");
  const amend = useMutation({
    mutationFn: () => {
      const change: ContractUpdate = {
        contractId: contract.id,
        ...(isoMoment(effectiveFrom) && { effectiveFrom: isoMoment(effectiveFrom) }),
        ...(isoMoment(endDate) && { endDate: isoMoment(endDate) }),
      };
      if (contract.plan) {
        if (planVersion.trim()) change.planVersion = Number(planVersion);
      } else if (products.trim() !== JSON.stringify(contract.products ?? [], null, 1)) {
        change.products = parseJsonField(products, "products") as ContractUpdate["products"];
      }
      return api.contracts.update.mutate(change);
    },
    onSuccess: changed,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    amend.mutate();
  };
  const id = `amend-${contract.id}`;
  return (
    <form className="stacked" onSubmit={submit} aria-label="Amend terms">
      <h3>Amend terms</h3>
      <Field id={`${id}-from`} label="Effective from" path="effectiveFrom" error={amend.error} hint={DAY_HINT}>
        {(control) => (
          <input {...control} value={effectiveFrom} onChange={(event) => setEffectiveFrom(event.target.value)} />
        )}
      </Field>
      {contract.plan ? (
        <Field
          id={`${id}-version`}
          label={`Version of ${contract.plan.key} (now ${contract.plan.version})`}
          path="planVersion"
          error={amend.error}
        >
          {(control) => (
            <input
              {...control}
              inputMode="numeric"
              size={4}
              value={planVersion}
              onChange={(event) => setPlanVersion(event.target.value)}
            />
          )}
        </Field>
      ) : (
        <Field id={`${id}-products`} label="Products" path="products" nested error={amend.error} hint="JSON.">
          {(control) => (
            <textarea
              {...control}
              rows={5}
              cols={60}
              value={products}
              onChange={(event) => setProducts(event.target.value)}
            />
          )}
        </Field>
      )}
      <Field id={`${id}-end`} label="New end (excluded; empty: kept)" path="endDate" error={amend.error}>
        {(control) => <input {...control} value={endDate} onChange={(event) => setEndDate(event.target.value)} />}
      </Field>
      <WriteButton type="submit" disabled={amend.isPending}>
        Amend
      </WriteButton>
      {amend.data && <p role="status">Amended: terms version {amend.data.contract.version}.</p>}
      {amend.error && <ProblemNotice error={amend.error} />}
    </form>
  );
}

/** A pause (Inactive: nothing billed from its day) or its end, and termination, each confirmed before it is sent. */
function StatusForms({ contract }: { contract: Contract }) {
  const { api } = useSession();
  const changed = useContractsChanged(contract.customerId);
  const [pauseFrom, setPauseFrom] = useState("");
  const [terminateAt, setTerminateAt] = useState("");
  const [reason, setReason] = useState("");
  const pause = useMutation({
    mutationFn: (status: "Active" | "Inactive") =>
      api.contracts.update.mutate({
        contractId: contract.id,
        status,
        ...(isoMoment(pauseFrom) && { effectiveFrom: isoMoment(pauseFrom) }),
      }),
    onSuccess: changed,
  });
  const terminate = useMutation({
    mutationFn: () =>
      api.contracts.terminate.mutate({
        contractId: contract.id,
        ...(isoMoment(terminateAt) && { at: isoMoment(terminateAt) }),
        ...(reason.trim() && { reason: reason.trim() }),
      }),
    onSuccess: changed,
  });
  const paused = contract.status === "Inactive";
  const id = `status-${contract.id}`;
  const ended = contract.status === "Terminated" || contract.status === "Expired";
  if (ended) return <p className="muted">{`${contract.status}: it cannot change any more.`}</p>;
  return (
    <>
      <form className="stacked" onSubmit={(event) => event.preventDefault()} aria-label={paused ? "Resume" : "Pause"}>
        <h3>{paused ? "Resume" : "Pause"}</h3>
        <Field id={`${id}-pause`} label="From (empty: today)" path="effectiveFrom" error={pause.error} hint={DAY_HINT}>
          {(control) => <input {...control} value={pauseFrom} onChange={(event) => setPauseFrom(event.target.value)} />}
        </Field>
        <ConfirmButton
          label={paused ? "Resume contract" : "Pause contract"}
          confirmLabel={paused ? "Resume from then" : "Pause from then"}
          warning={paused ? "It bills again from that day." : "Nothing is billed from that day until it resumes."}
          onConfirm={() => pause.mutate(paused ? "Active" : "Inactive")}
          pending={pause.isPending}
        />
        {pause.error && <ProblemNotice error={pause.error} />}
      </form>
      <form className="stacked" onSubmit={(event) => event.preventDefault()} aria-label="Terminate">
        <h3>Terminate</h3>
        <Field id={`${id}-at`} label="At (empty: now)" path="at" error={terminate.error} hint={DAY_HINT}>
          {(control) => (
            <input {...control} value={terminateAt} onChange={(event) => setTerminateAt(event.target.value)} />
          )}
        </Field>
        <Field id={`${id}-reason`} label="Reason (kept on the contract)" path="reason" error={terminate.error}>
          {(control) => <input {...control} value={reason} onChange={(event) => setReason(event.target.value)} />}
        </Field>
        <ConfirmButton
          label="Terminate contract"
          confirmLabel="Terminate for good"
          warning="The contract ends then and cannot be resumed."
          onConfirm={() => terminate.mutate()}
          pending={terminate.isPending}
        />
        {terminate.error && <ProblemNotice error={terminate.error} />}
      </form>
    </>
  );
}

/** Every change the API allows on one contract. */
export function ContractChanges({ contract }: { contract: Contract }) {
  return (
    <section className="panel wide" aria-labelledby={`change-${contract.id}-heading`}>
      <h2 id={`change-${contract.id}-heading`}>{`Change ${contract.name}`}</h2>
      <div className="grid">
        <AmendForm contract={contract} />
        <div>
          <StatusForms contract={contract} />
        </div>
      </div>
    </section>
  );
}
