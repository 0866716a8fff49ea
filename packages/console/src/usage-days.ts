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
