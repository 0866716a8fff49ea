import type { HTMLAttributes, ReactNode } from "react";

/** One column of a DataTable: its name, what its header shows (the name unless given) and each row's cell. */
export interface Column<T> {
  name: string;
  /** The header shown instead of the name: hidden text over a column of buttons. */
  header?: ReactNode;
  /** Figures: right-aligned, header included. */
  numeric?: boolean;
  cell: (row: T) => ReactNode;
}

/** The one shape every list of the console takes: a header of column names, then a row per item. */
export function DataTable<T>({
  rows,
  columns,
  rowKey,
  caption,
  className,
  rowProps,
}: {
  rows: T[];
  columns: Column<T>[];
  rowKey: (row: T, index: number) => string;
  caption?: ReactNode;
  className?: string;
  rowProps?: (row: T) => HTMLAttributes<HTMLTableRowElement>;
}) {
  const alignOf = (column: Column<T>) => (column.numeric ? "number" : undefined);
  return (
    <table className={className}>
      {caption !== undefined && <caption>{caption}</caption>}
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column.name} scope="col" className={alignOf(column)}>
              {column.header ?? column.name}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, index) => (
          <tr key={rowKey(row, index)} {...rowProps?.(row)}>
            {columns.map((column) => (
              <td key={column.name} className={alignOf(column)}>
                {column.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
