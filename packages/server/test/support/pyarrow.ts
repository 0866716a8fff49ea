import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** An independent Parquet reader for the tests: Apache Arrow's Python library, pinned, in its own venv. */
const PYARROW_VERSION = "26.0.1";

/** The venv's python with pyarrow, made on first use (PyPI through pip, as scripts/schemathesis.sh does). */
export function pyarrowPython(): string {
  const venv = join(
    process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"),
    "billing-service",
    `pyarrow-${PYARROW_VERSION}`,
  );
  const python = join(venv, "bin", "python");
  const ready = () => existsSync(python) && spawnSync(python, ["-c", "import pyarrow"]).status === 0;
  if (ready()) return python;
  const steps: [string, string[]][] = [
    ["python3", ["-m", "venv", venv]],
    [python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", `pyarrow==${PYARROW_VERSION}`]],
  ];
  for (const [command, args] of steps) {
    const run = spawnSync(command, args, { encoding: "utf8" });
    if (run.status !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${run.stderr}`);
  }
  if (!ready()) throw new Error(`pyarrow ${PYARROW_VERSION} did not install into ${venv}`);
  return python;
}

/** What pyarrow reads of a Parquet file: its columns' Arrow types, its row count, each column's sum or values. */
export interface ParquetReading {
  rows: number;
  types: Record<string, string>;
  /** Decimal and integer columns: their sum as text (exact); others: null. */
  sums: Record<string, string | null>;
  /** Each column's values as text (null stays null), for the columns asked. */
  values: Record<string, (string | null)[]>;
}

const READER = `
import json, sys
import pyarrow as pa, pyarrow.compute as pc, pyarrow.parquet as pq
table = pq.read_table(sys.argv[1])
def total(column):
    if pa.types.is_decimal(column.type) or pa.types.is_integer(column.type):
        value = pc.sum(column).as_py()
        return None if value is None else str(value)
    return None
print(json.dumps({
    "rows": table.num_rows,
    "types": {f.name: str(f.type) for f in table.schema},
    "sums": {name: total(table[name]) for name in table.column_names},
    "values": {name: [None if v is None else str(v) for v in table[name].to_pylist()] for name in sys.argv[2:]},
}))
`;

/** Reads the file with pyarrow (never with the service's own code). */
export function readParquet(file: string, valuesOf: string[] = []): ParquetReading {
  const run = spawnSync(pyarrowPython(), ["-c", READER, file, ...valuesOf], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`pyarrow could not read ${file}: ${run.stderr}`);
  return JSON.parse(run.stdout) as ParquetReading;
}
