const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of a UTC day. */
export const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/**
 * Every UTC day from `startDate` up to, not including, `endDate`, with the usage of the days the API returned and 0
 * for the others: a chart over a period shows the quiet days as well.
 */
export function dailyPoints(startDate: string, endDate: string, days: { date: string; value: number }[]) {
  const values = new Map(days.map((day) => [day.date.slice(0, 10), day.value]));
  const points: { date: string; value: number }[] = [];
  for (let time = Date.parse(startDate); time < Date.parse(endDate); time += DAY_MS) {
    const date = dayOf(time);
    points.push({ date, value: values.get(date) ?? 0 });
  }
  return points;
}

/** The default period: the 30 UTC days up to and including today. */
export function lastThirtyDays(now = Date.now()) {
  const tomorrow = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
  return { startDate: dayOf(tomorrow - 30 * DAY_MS), endDate: dayOf(tomorrow) };
}

/** What a contract tells the chart: when it runs, and which meters its products read. */
export interface ChartedContract {
  startDate: string;
  endDate?: string | null;
  products?: { catalogProductId?: string | undefined }[] | undefined;
}

/**
 * The chart's first view of a customer: the first meter its contracts price (else the first meter), over the last 30
 * days its latest contract ran (up to today): a customer whose contracts ended shows its last usage, not a flat 0.
 */
export function defaultUsageView(contracts: ChartedContract[], meterKeys: string[], now = Date.now()) {
  const priced = contracts.flatMap((contract) => (contract.products ?? []).map((product) => product.catalogProductId));
  const meterKey = priced.find((key) => key !== undefined && meterKeys.includes(key)) ?? meterKeys[0];
  const ends = contracts.map((contract) =>
    contract.endDate ? Date.parse(contract.endDate) : Number.POSITIVE_INFINITY,
  );
  const latestEnd = Math.max(...ends);
  if (contracts.length === 0 || latestEnd > now) return { meterKey, period: lastThirtyDays(now) };
  const latest = contracts[ends.indexOf(latestEnd)] as ChartedContract;
  const endDay = Math.ceil(latestEnd / DAY_MS) * DAY_MS;
  const startDay = Math.max(endDay - 30 * DAY_MS, Math.floor(Date.parse(latest.startDate) / DAY_MS) * DAY_MS);
  return { meterKey, period: { startDate: dayOf(startDay), endDate: dayOf(endDay) } };
}
