import type { AppRouter } from "@billing/server";
import { useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { type FormEvent, useState } from "react";
import { Panel } from "../components/panel.js";
import { QueryStatus } from "../components/status.js";
import { formatDateTime } from "../format.js";
import { useSession } from "../session-context.js";

type Reason = NonNullable<
  inferRouterOutputs<AppRouter>["events"]["explain"]["attribution"]["meters"][number]["reason"]
>;

/** Each reason in words (typed by the API's list, so a new reason fails the type check until it has its words). */
const REASONS: Record<Reason, string> = {
  NO_CUSTOMER: "no customer has the event's alias",
  FILTERED_OUT: "the meter's filters leave it out",
  MISSING_VALUE: "the event has no value for the meter to read",
  VALUE_NOT_A_NUMBER: "the meter's value in the event is not a number",
  DAY_SET_BY_MEASUREMENT: "a measurement sets that day's usage",
  AFTER_INVOICE: "it was stored after its day was invoiced; no later invoice has billed it as late usage yet",
  ADJUSTED: "it was stored after its day was invoiced, and a later invoice bills it as late usage",
  AFTER_WINDOW: "it was stored after its day was invoiced, and the account's late usage window had passed by the next",
  VOIDED: "it was voided: it counts nowhere from then on (the event shows who voided it, when and why)",
  NO_METER: "no meter counts events of this name",
};

/** "Why was this event counted?": the API's attribution of one event to a customer and to each meter of its name. */
export function EventExplain() {
  const { api } = useSession();
  const [draft, setDraft] = useState("");
  const [eventId, setEventId] = useState("");
  const explained = useQuery({
    queryKey: ["explain", eventId],
    enabled: eventId !== "",
    queryFn: () => api.events.explain.query({ eventId }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setEventId(draft.trim());
  };
  const data = explained.data;
  return (
    <Panel id="explain" title="Why was this event counted?">
      <form className="inline" onSubmit={submit}>
        <label htmlFor="explain-event">Event id</label>
        <input id="explain-event" value={draft} onChange={(event) => setDraft(event.target.value)} />
        <button type="submit">Explain</button>
      </form>
      {eventId && <QueryStatus query={explained} what="the explanation" />}
      {data && (
        <div className="explanation">
          <p>
            <code>{data.event.name}</code> at {formatDateTime(data.event.timestamp)}, for{" "}
            {data.attribution.customerId ? <code>{data.attribution.customerId}</code> : "no customer"}
            {data.attribution.reason === "NO_METER" && ": no meter counts events of this name"}
          </p>
          <ul>
            {data.attribution.meters.map((meter) => (
              <li key={meter.key}>
                <code>{meter.key}</code>:{" "}
                {meter.counted && meter.reason === "ADJUSTED"
                  ? `counted as late usage on invoice ${meter.adjustedBy ?? ""}`
                  : meter.counted
                    ? "counted"
                    : `not counted: ${meter.reason ? REASONS[meter.reason] : "no reason given"}`}
              </li>
            ))}
          </ul>
        </div>
      )}
    </Panel>
  );
}
