// Row selection in a virtualised table: click, Ctrl/⌘-click and Shift-click over row positions
// of the current query, and rows as tab-separated text for the clipboard.
import type { Cell } from "./api";

/** Selected row positions and the anchor a Shift-click extends from. */
export interface RowSelection {
  rows: ReadonlySet<number>;
  anchor: number;
}

/** Nothing selected. */
export const NO_SELECTION: RowSelection = { rows: new Set(), anchor: -1 };

/** Which modifier keys a click carried. */
export interface ClickKeys {
  /** Shift: extend from the anchor. */
  shift?: boolean;
  /** Ctrl or ⌘: toggle one row, or add a range to the selection. */
  toggle?: boolean;
}

/**
 * The selection after a click on row `index`: alone selects it; toggle adds or removes it;
 * shift selects the rows from the anchor to it (added to the selection with toggle too).
 */
export function clickRow(selection: RowSelection, index: number, keys: ClickKeys = {}): RowSelection {
  if (keys.shift && selection.anchor >= 0) {
    const rows = keys.toggle ? new Set(selection.rows) : new Set<number>();
    const [from, to] = selection.anchor <= index ? [selection.anchor, index] : [index, selection.anchor];
    for (let i = from; i <= to; i++) rows.add(i);
    return { rows, anchor: selection.anchor };
  }
  if (keys.toggle) {
    const rows = new Set(selection.rows);
    if (rows.has(index)) rows.delete(index);
    else rows.add(index);
    return { rows, anchor: index };
  }
  return { rows: new Set([index]), anchor: index };
}

/** The selected positions, ascending. */
export function selectedRows(selection: RowSelection): number[] {
  return [...selection.rows].sort((a, b) => a - b);
}

/** A cell as copied: its exact text, with tabs and line breaks turned into spaces. */
function tsvCell(cell: Cell | undefined): string {
  if (cell === null || cell === undefined) return "";
  return String(cell).replace(/[\t\r\n]/g, " ");
}

/** Rows as tab-separated values, one line each (no header, no trailing line break). */
export function toTsv(rows: readonly (readonly (Cell | undefined)[])[]): string {
  return rows.map((row) => row.map(tsvCell).join("\t")).join("\n");
}

/**
 * The URL a view's detail pane shows after a click on `url` in one of its URL lists: the pane
 * follows the last URL clicked, and a click on the URL it already shows closes it.
 */
export function chooseUrl(shown: string | null, url: string): string | null {
  return shown === url ? null : url;
}
