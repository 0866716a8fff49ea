import { formatDate } from "../format.js";

/** A day as the console writes it (ISO), never broken across lines at its hyphens. */
export const Day = ({ iso }: { iso: string }) => <span className="nowrap">{formatDate(iso)}</span>;
