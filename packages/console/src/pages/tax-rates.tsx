import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { Outputs } from "../api.js";
import { ConfirmButton } from "../components/confirm-button.js";
import { type Column, DataTable } from "../components/data-table.js";
import { Day } from "../components/day.js";
import { Field } from "../components/field.js";
import { Pager, useCursorPages } from "../components/paging.js";
import { Empty, ProblemNotice, QueryStatus } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { useSession } from "../session-context.js";

const PAGE_SIZE = 20;

type TaxRate = Outputs["taxRates"]["list"]["taxRates"][number];

/** Defines a tax rate: a code contracts name, a name printed on invoices, a percent, added or included in prices. */
function NewTaxRateForm() {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [code, setCode] = useState("");
  const [name, setName] = useState("");
  const [rate, setRate] = useState("");
  const [inclusive, setInclusive] = useState(false);
  const create = useMutation({
    mutationFn: () =>
      api.taxRates.create.mutate({ code, name, rate: rate === "" ? Number.NaN : Number(rate), inclusive }),
    onSuccess: () => {
      setCode("");
      setName("");
      setRate("");
      setInclusive(false);
      return queryClient.invalidateQueries({ queryKey: ["tax-rates"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <details className="panel">
      <summary>New tax rate</summary>
      <form className="stacked" onSubmit={submit} aria-label="New tax rate">
        <Field id="tax-code" label="Code (contracts name it)" path="code" error={create.error}>
          {(control) => <input {...control} value={code} onChange={(event) => setCode(event.target.value)} />}
        </Field>
        <Field id="tax-name" label="Name on invoices" path="name" error={create.error}>
          {(control) => <input {...control} value={name} onChange={(event) => setName(event.target.value)} />}
        </Field>
        <Field id="tax-rate" label="Rate (percent)" path="rate" error={create.error}>
          {(control) => (
            <input {...control} inputMode="decimal" value={rate} onChange={(event) => setRate(event.target.value)} />
          )}
        </Field>
        <div className="field">
          <label>
            <input type="checkbox" checked={inclusive} onChange={(event) => setInclusive(event.target.checked)} />{" "}
            Included in prices (not added to them)
          </label>
        </div>
        <p className="muted">A rate that priced an invoice never changes: to change a percent, make a new rate.</p>
        <WriteButton type="submit" disabled={create.isPending}>
          Create tax rate
        </WriteButton>
        {create.error && <ProblemNotice error={create.error} />}
      </form>
    </details>
  );
}

/** Renames a rate (the only change a rate takes) or archives it (contracts can no longer name it). */
function TaxRateActions({ taxRate }: { taxRate: TaxRate }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(taxRate.name);
  const done = () => queryClient.invalidateQueries({ queryKey: ["tax-rates"] });
  const rename = useMutation({
    mutationFn: () => api.taxRates.update.mutate({ taxRateId: taxRate.id, name }),
    onSuccess: () => {
      setRenaming(false);
      return done();
    },
  });
  const archive = useMutation({
    mutationFn: () => api.taxRates.archive.mutate({ taxRateId: taxRate.id }),
    onSuccess: done,
  });
  if (taxRate.archivedAt) return <span className="muted">Archived</span>;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate();
  };
  return (
    <div className="actions">
      {renaming ? (
        <form className="inline" onSubmit={submit} aria-label={`Rename ${taxRate.code}`}>
          <Field id={`rename-${taxRate.id}`} label={`New name of ${taxRate.code}`} path="name" error={rename.error}>
            {(control) => <input {...control} value={name} onChange={(event) => setName(event.target.value)} />}
          </Field>
          <WriteButton type="submit" disabled={rename.isPending}>
            Save
          </WriteButton>
          <button type="button" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <WriteButton onClick={() => setRenaming(true)} aria-label={`Rename ${taxRate.code}`}>
          Rename
        </WriteButton>
      )}
      <ConfirmButton
        label="Archive"
        name={`Archive ${taxRate.code}`}
        confirmLabel="Archive for good"
        warning="New contracts can no longer name it; invoices it priced keep it."
        onConfirm={() => archive.mutate()}
        pending={archive.isPending}
      />
      {(rename.error ?? archive.error) && <ProblemNotice error={rename.error ?? archive.error} />}
    </div>
  );
}

const COLUMNS: Column<TaxRate>[] = [
  { name: "Code", cell: (taxRate) => <code>{taxRate.code}</code> },
  { name: "Name", cell: (taxRate) => taxRate.name },
  { name: "Rate", numeric: true, cell: (taxRate) => `${taxRate.rate}%` },
  { name: "Applied", cell: (taxRate) => (taxRate.inclusive ? "included in prices" : "added to prices") },
  { name: "Created", cell: (taxRate) => <Day iso={taxRate.createdAt} /> },
  { name: "Actions", cell: (taxRate) => <TaxRateActions taxRate={taxRate} /> },
];

export function TaxRatesPage() {
  const { api } = useSession();
  const pages = useCursorPages();
  const rates = useQuery({
    queryKey: ["tax-rates", pages.cursor],
    queryFn: () => api.taxRates.list.query({ limit: PAGE_SIZE, cursor: pages.cursor }),
  });
  return (
    <section>
      <h1>Tax rates</h1>
      <NewTaxRateForm />
      <QueryStatus query={rates} what="tax rates" />
      {rates.data &&
        (rates.data.taxRates.length === 0 ? (
          <Empty>No tax rates yet: create one above.</Empty>
        ) : (
          <>
            <DataTable
              rows={rates.data.taxRates}
              columns={COLUMNS}
              rowKey={(taxRate) => taxRate.id}
              caption="Tax rates"
            />
            <Pager label="Tax rates" pages={pages} nextCursor={rates.data.nextCursor} total={rates.data.total} />
          </>
        ))}
    </section>
  );
}
