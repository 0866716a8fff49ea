import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { Outputs } from "../api.js";
import { Field } from "../components/field.js";
import { ProblemNotice } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { useSession } from "../session-context.js";

type MeterAggregation = Outputs["meters"]["get"]["meter"]["aggregation"];

const AGGREGATIONS: [MeterAggregation, string][] = [
  ["COUNT", "Count the events"],
  ["SUM", "Sum a value"],
  ["MAX", "Largest value"],
  ["LATEST", "Latest value"],
  ["UNIQUE_COUNT", "Count distinct values"],
];

/** Defines a meter: which events it reads and how it turns them into a day's usage (never changed afterwards). */
export function NewMeterForm() {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [key, setKey] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [eventName, setEventName] = useState("");
  const [aggregation, setAggregation] = useState<MeterAggregation>("COUNT");
  const [valueProperty, setValueProperty] = useState("");
  const create = useMutation({
    mutationFn: () =>
      api.meters.create.mutate({
        key,
        eventName,
        aggregation,
        ...(displayName.trim() && { displayName: displayName.trim() }),
        ...(valueProperty !== "" && { valueProperty }),
      }),
    onSuccess: () => {
      for (const clear of [setKey, setDisplayName, setEventName, setValueProperty]) clear("");
      return queryClient.invalidateQueries({ queryKey: ["meters"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const text = (id: string, label: string, path: string, value: string, set: (value: string) => void) => (
    <Field id={id} label={label} path={path} error={create.error}>
      {(control) => <input {...control} value={value} onChange={(event) => set(event.target.value)} />}
    </Field>
  );
  return (
    <details className="panel">
      <summary>New meter</summary>
      <form className="stacked" onSubmit={submit} aria-label="New meter">
        {text("meter-key", "Key (products name it as their catalogProductId)", "key", key, setKey)}
        {text("meter-name", "Name (optional)", "displayName", displayName, setDisplayName)}
        {text("meter-event", "Events named", "eventName", eventName, setEventName)}
        <Field id="meter-aggregation" label="Usage of a day" path="aggregation" error={create.error}>
          {(control) => (
            <select
              {...control}
              value={aggregation}
              onChange={(event) => setAggregation(event.target.value as MeterAggregation)}
            >
              {AGGREGATIONS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
        {text(
          "meter-value",
          "Value read from each event's data (not for Count)",
          "valueProperty",
          valueProperty,
          setValueProperty,
        )}
        <WriteButton type="submit" disabled={create.isPending}>
          Create meter
        </WriteButton>
        {create.error && <ProblemNotice error={create.error} />}
      </form>
    </details>
  );
}
