// A table's column layout as the user arranged it: widths, order and hidden columns, kept per
// table in localStorage. Pure functions over a plain object, so the rules are tested alone.
import type { Column, ColumnKind } from "./api";

/** What the user changed about a table's columns. Keys are `Column.key`s. */
export interface ColumnLayout {
  /** Column keys in the order shown; columns not listed follow in the table's order. */
  order: string[];
  /** Widths in pixels of the columns the user resized. */
  widths: Record<string, number>;
  /** Keys of hidden columns. */
  hidden: string[];
}

/** The narrowest and widest a column can be dragged. */
export const MIN_WIDTH = 48;
export const MAX_WIDTH = 2000;

const BASE_WIDTHS: Record<ColumnKind, number> = { url: 360, text: 160, number: 90 };

/** A column's width before the user resizes it: enough for its kind and its header. */
export function defaultWidth(column: Column): number {
  return Math.max(BASE_WIDTHS[column.kind], Math.min(320, column.title.length * 8 + 44));
}

/** An empty layout: the table's own order and widths. */
export function emptyLayout(): ColumnLayout {
  return { order: [], widths: {}, hidden: [] };
}

function storageKey(table: string): string {
  return `dustpan.columns.${table}`;
}

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** The layout stored for `table`; an empty one when none is stored or it does not read. */
export function loadLayout(table: string): ColumnLayout {
  const raw = storage()?.getItem(storageKey(table));
  if (!raw) return emptyLayout();
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== "object" || value === null) return emptyLayout();
    const v = value as Partial<Record<keyof ColumnLayout, unknown>>;
    const strings = (x: unknown): string[] =>
      Array.isArray(x) ? x.filter((s): s is string => typeof s === "string") : [];
    const widths: Record<string, number> = {};
    if (typeof v.widths === "object" && v.widths !== null) {
      for (const [key, width] of Object.entries(v.widths)) {
        if (typeof width === "number" && Number.isFinite(width)) widths[key] = clampWidth(width);
      }
    }
    return { order: strings(v.order), widths, hidden: strings(v.hidden) };
  } catch {
    return emptyLayout();
  }
}

/** Remembers `layout` for `table` (silently not when storage is unavailable or full). */
export function saveLayout(table: string, layout: ColumnLayout): void {
  try {
    storage()?.setItem(storageKey(table), JSON.stringify(layout));
  } catch {
    // Storage full or denied: the layout lasts until the table closes.
  }
}

/** `width` within `[MIN_WIDTH, MAX_WIDTH]`, rounded to a pixel. */
export function clampWidth(width: number): number {
  return Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, width)));
}

/** A column as shown: the column, its index in the table's rows, its width. */
export interface ShownColumn {
  column: Column;
  index: number;
  width: number;
}

/** Every column in the order shown (the layout's order, then new columns in table order). */
export function ordered(columns: Column[], layout: ColumnLayout): Column[] {
  const byKey = new Map(columns.map((c) => [c.key, c]));
  const listed = layout.order.filter((key) => byKey.has(key));
  const seen = new Set(listed);
  return [...listed.map((key) => byKey.get(key) as Column), ...columns.filter((c) => !seen.has(c.key))];
}

/** The visible columns in the order shown, with widths. Never empty when there are columns. */
export function arrange(columns: Column[], layout: ColumnLayout): ShownColumn[] {
  const index = new Map(columns.map((c, i) => [c.key, i]));
  const hidden = new Set(layout.hidden);
  let shown = ordered(columns, layout).filter((c) => !hidden.has(c.key));
  if (shown.length === 0) shown = columns.slice(0, 1);
  return shown.map((column) => ({
    column,
    index: index.get(column.key) ?? 0,
    width: layout.widths[column.key] ?? defaultWidth(column),
  }));
}

/** The layout with `key` resized to `width` (clamped). */
export function resizeColumn(layout: ColumnLayout, key: string, width: number): ColumnLayout {
  return { ...layout, widths: { ...layout.widths, [key]: clampWidth(width) } };
}

/**
 * The layout with column `key` moved to just before `before` (to the end when `before` is
 * `null`); the order is written out in full so later moves are stable.
 */
export function moveColumn(
  columns: Column[],
  layout: ColumnLayout,
  key: string,
  before: string | null,
): ColumnLayout {
  const keys = ordered(columns, layout).map((c) => c.key);
  if (!keys.includes(key) || key === before) return layout;
  const rest = keys.filter((k) => k !== key);
  const at = before === null ? rest.length : rest.indexOf(before);
  rest.splice(at < 0 ? rest.length : at, 0, key);
  return { ...layout, order: rest };
}

/** The layout with column `key` moved one visible place left (-1) or right (+1). */
export function shiftColumn(columns: Column[], layout: ColumnLayout, key: string, step: -1 | 1): ColumnLayout {
  const visible = arrange(columns, layout).map((s) => s.column.key);
  const at = visible.indexOf(key);
  const target = at + step;
  if (at < 0 || target < 0 || target >= visible.length) return layout;
  const before = step < 0 ? visible[target] : (visible[target + 1] ?? null);
  return moveColumn(columns, layout, key, before);
}

/** The layout with `key` hidden or shown; the last visible column cannot be hidden. */
export function setHidden(columns: Column[], layout: ColumnLayout, key: string, hide: boolean): ColumnLayout {
  const hidden = new Set(layout.hidden);
  if (hide) {
    const visible = columns.filter((c) => !hidden.has(c.key));
    if (visible.length <= 1 && visible.some((c) => c.key === key)) return layout;
    hidden.add(key);
  } else {
    hidden.delete(key);
  }
  return { ...layout, hidden: [...hidden] };
}

/**
 * The narrowest a column gets when a table is fitted into a narrow window, by kind: a URL
 * column keeps room for the origin and the path's distinguishing end
 * (`http://site.test:8480/shoes/red-sneaker`).
 */
export const FIT_FLOORS: Record<ColumnKind, number> = { url: 280, text: 100, number: 80 };

/**
 * The order in which kinds of columns give up width to fit: text first, then numbers (whose
 * values are short), URLs last (what tells one URL from another is at its end).
 */
const FIT_ORDER: ColumnKind[] = ["text", "number", "url"];

/**
 * The columns of `shown` fitted into `available` pixels, so that a table just too wide for its
 * window (the clusters table at 1024 px) keeps its last columns in view without scrolling
 * sideways. Columns the user did not resize (not in `resized`) give up width, text columns
 * first, then numbers, then URLs, each in proportion to its width above its kind's floor
 * ([`FIT_FLOORS`]); the last column keeps its width (it grows into any room left). When even
 * the floors do not fit, or nothing needs to give, the widths stay as they are.
 */
export function fitWidths(shown: ShownColumn[], resized: Record<string, number>, available: number): ShownColumn[] {
  const total = shown.reduce((sum, s) => sum + s.width, 0);
  let excess = total - Math.floor(available);
  if (available <= 0 || excess <= 0) return shown;
  const last = shown.length - 1;
  const shrinkable = (s: ShownColumn, i: number) => i !== last && !(s.column.key in resized);
  const room = (s: ShownColumn) => Math.max(0, s.width - FIT_FLOORS[s.column.kind]);
  const slack = shown.reduce((sum, s, i) => sum + (shrinkable(s, i) ? room(s) : 0), 0);
  if (slack < excess) return shown;
  const widths = shown.map((s) => s.width);
  for (const kind of FIT_ORDER) {
    if (excess <= 0) break;
    const members = shown.map((_, i) => i).filter((i) => shown[i].column.kind === kind && shrinkable(shown[i], i));
    let left = members.reduce((sum, i) => sum + room(shown[i]), 0);
    let take = Math.min(excess, left);
    excess -= take;
    for (const i of members) {
      const own = room(shown[i]);
      const cut = left === 0 ? 0 : Math.min(own, Math.ceil((take * own) / left));
      widths[i] -= cut;
      take -= cut;
      left -= own;
    }
  }
  return shown.map((s, i) => (widths[i] === s.width ? s : { ...s, width: widths[i] }));
}
