// Column filters as the window writes and shows them: the operators a column offers, the quick
// filter syntax typed under a header (`>=300`, `300..399`, `!=200`, `^https://`, `/regex/`), and
// the text of a filter chip. Rows are filtered by the desktop shell (`view::table`), never here.
import type { Column, ColumnFilter, ColumnKind, FilterOp } from "./api";
import { FILTER_OP_LABELS, NUMBER_FILTER_OPS, TEXT_FILTER_OPS } from "./api";

export { FILTER_OP_LABELS, NUMBER_FILTER_OPS, TEXT_FILTER_OPS };

/** The operators a column offers, its kind's own first. */
export function operatorsFor(kind: ColumnKind): { label: string; ops: readonly FilterOp[] }[] {
  const text = { label: "Text", ops: TEXT_FILTER_OPS };
  const number = { label: "Number", ops: NUMBER_FILTER_OPS };
  return kind === "number" ? [number, text] : [text, number];
}

/** The operator a column's filter starts with. */
export function defaultOperator(kind: ColumnKind): FilterOp {
  return kind === "number" ? "ge" : "contains";
}

/** The operator compares numbers. */
export function isNumericOp(op: FilterOp): boolean {
  return NUMBER_FILTER_OPS.includes(op);
}

/**
 * A number as the shell reads it in a filter: an optional sign, ASCII digits with an optional
 * decimal point, nothing else but surrounding white space (`view::table::parse_number`).
 */
export function isNumber(text: string): boolean {
  return /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(text.trim());
}

/** What a quick filter says: nothing, a filter, or why it cannot be read. */
export type QuickFilter = { filter: ColumnFilter | null; error?: undefined } | { filter?: undefined; error: string };

const COMPARISONS: [RegExp, FilterOp][] = [
  [/^(>=|≥|=>)/, "ge"],
  [/^(<=|≤|=<)/, "le"],
  [/^(!=|<>|≠)/, "ne"],
  [/^>/, "gt"],
  [/^</, "lt"],
  [/^==?/, "eq"],
];

function filter(column: string, op: FilterOp, value: string, upper: string | null = null): QuickFilter {
  return { filter: { column, op, value, upper } };
}

/**
 * Reads what was typed in a column's quick filter.
 *
 * Numbers (any column): `>=300` `≥300` `>300` `<=` `<` `==200` `≠200` `300..399` (between, both
 * included); on a number column also `200`, `=200` and `!=200`. Text: `=x` equals, `!=x` does not
 * equal, `!x` does not contain, `^x` starts with, `x$` ends with, `^x$` equals, `/x/` a regular
 * expression; anything else is "contains". Case never matters. An empty box is no filter.
 */
export function parseQuickFilter(column: Column, typed: string): QuickFilter {
  const text = typed.trim();
  if (text === "") return { filter: null };
  const key = column.key;
  const range = /^(.+?)\s*\.\.\s*(.+)$/.exec(text);
  if (range && isNumber(range[1]) && isNumber(range[2])) {
    return filter(key, "between", range[1].trim(), range[2].trim());
  }
  const numeric = column.kind === "number";
  for (const [prefix, op] of COMPARISONS) {
    const match = prefix.exec(text);
    if (!match) continue;
    const rest = text.slice(match[0].length).trim();
    // On text columns `=x` and `!=x` compare text; `==n` and `≠n` compare numbers.
    if (!numeric && (op === "eq" || op === "ne") && !["==", "≠"].includes(match[0])) break;
    if (isNumber(rest)) return filter(key, op, rest);
    if (numeric) return { error: `${FILTER_OP_LABELS[op]} needs a number, not “${rest}”` };
    break;
  }
  if (numeric && isNumber(text)) return filter(key, "eq", text);
  if (text.length >= 2 && text.startsWith("/") && text.endsWith("/")) {
    return filter(key, "regex", text.slice(1, -1));
  }
  if (text.startsWith("!=")) return filter(key, "not_equals", text.slice(2));
  if (text.startsWith("=")) return filter(key, "equals", text.slice(1));
  if (text.startsWith("!")) return filter(key, "not_contains", text.slice(1));
  if (text.length >= 2 && text.startsWith("^") && text.endsWith("$")) {
    return filter(key, "equals", text.slice(1, -1));
  }
  if (text.startsWith("^")) return filter(key, "starts_with", text.slice(1));
  if (text.length >= 2 && text.endsWith("$")) return filter(key, "ends_with", text.slice(0, -1));
  return filter(key, "contains", text);
}

/** A filter written back in the quick filter syntax (what `parseQuickFilter` reads back). */
export function formatQuickFilter(column: Column, f: ColumnFilter): string {
  switch (f.op) {
    case "contains":
      return f.value;
    case "not_contains":
      return `!${f.value}`;
    case "equals":
      return `=${f.value}`;
    case "not_equals":
      return `!=${f.value}`;
    case "starts_with":
      return `^${f.value}`;
    case "ends_with":
      return `${f.value}$`;
    case "regex":
      return `/${f.value}/`;
    case "eq":
      return column.kind === "number" ? f.value : `==${f.value}`;
    case "ne":
      return column.kind === "number" ? `!=${f.value}` : `≠${f.value}`;
    case "lt":
      return `<${f.value}`;
    case "le":
      return `<=${f.value}`;
    case "gt":
      return `>${f.value}`;
    case "ge":
      return `>=${f.value}`;
    case "between":
      return `${f.value}..${f.upper ?? ""}`;
  }
}

/** A filter as its chip reads: `Status Code ≥ 300`, `Address contains “comment”`. */
export function describeFilter(title: string, f: ColumnFilter): string {
  if (f.op === "between") return `${title} between ${f.value} and ${f.upper ?? "?"}`;
  if (isNumericOp(f.op)) return `${title} ${FILTER_OP_LABELS[f.op]} ${f.value}`;
  if (f.op === "regex") return `${title} matches /${f.value}/`;
  if (f.value === "") {
    if (f.op === "equals") return `${title} is empty`;
    if (f.op === "not_equals") return `${title} is not empty`;
  }
  return `${title} ${FILTER_OP_LABELS[f.op]} “${f.value}”`;
}

/**
 * Why a filter cannot be sent as it is (a number operator without numbers), or `null`. Patterns
 * are checked by the shell, whose regular expressions are not JavaScript's.
 */
export function filterProblem(f: ColumnFilter): string | null {
  if (!isNumericOp(f.op)) return null;
  if (!isNumber(f.value)) return `${FILTER_OP_LABELS[f.op]} needs a number`;
  if (f.op === "between" && !isNumber(f.upper ?? "")) return "between needs two numbers";
  return null;
}
