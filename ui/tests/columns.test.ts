import { beforeEach, describe, expect, it } from "vitest";
import type { Column } from "../src/lib/api";
import {
  arrange,
  defaultWidth,
  emptyLayout,
  fitWidths,
  FIT_FLOORS,
  loadLayout,
  MAX_WIDTH,
  MIN_WIDTH,
  moveColumn,
  resizeColumn,
  saveLayout,
  setHidden,
  shiftColumn,
} from "../src/lib/columns";

const columns: Column[] = [
  { key: "a", title: "A", kind: "url" },
  { key: "b", title: "B", kind: "number" },
  { key: "c", title: "C", kind: "text" },
  { key: "d", title: "D", kind: "text" },
];

const keys = (layout = emptyLayout()) => arrange(columns, layout).map((s) => s.column.key);

describe("column layout", () => {
  beforeEach(() => localStorage.clear());

  it("shows the table's columns in order at their default widths", () => {
    const shown = arrange(columns, emptyLayout());
    expect(shown.map((s) => [s.column.key, s.index, s.width])).toEqual([
      ["a", 0, defaultWidth(columns[0])],
      ["b", 1, defaultWidth(columns[1])],
      ["c", 2, defaultWidth(columns[2])],
      ["d", 3, defaultWidth(columns[3])],
    ]);
  });

  it("resizes within bounds", () => {
    expect(arrange(columns, resizeColumn(emptyLayout(), "b", 250))[1].width).toBe(250);
    expect(resizeColumn(emptyLayout(), "b", 1).widths.b).toBe(MIN_WIDTH);
    expect(resizeColumn(emptyLayout(), "b", 1e9).widths.b).toBe(MAX_WIDTH);
  });

  it("moves columns before another, to the end, and one place left or right", () => {
    expect(keys(moveColumn(columns, emptyLayout(), "d", "a"))).toEqual(["d", "a", "b", "c"]);
    expect(keys(moveColumn(columns, emptyLayout(), "a", null))).toEqual(["b", "c", "d", "a"]);
    expect(keys(shiftColumn(columns, emptyLayout(), "b", -1))).toEqual(["b", "a", "c", "d"]);
    expect(keys(shiftColumn(columns, emptyLayout(), "b", 1))).toEqual(["a", "c", "b", "d"]);
    expect(keys(shiftColumn(columns, emptyLayout(), "a", -1))).toEqual(["a", "b", "c", "d"]);
    expect(keys(shiftColumn(columns, emptyLayout(), "d", 1))).toEqual(["a", "b", "c", "d"]);
    // Moving past a hidden column skips it.
    const hidden = setHidden(columns, emptyLayout(), "c", true);
    expect(keys(shiftColumn(columns, hidden, "b", 1))).toEqual(["a", "d", "b"]);
  });

  it("hides and shows columns, never the last one", () => {
    let layout = setHidden(columns, emptyLayout(), "a", true);
    expect(keys(layout)).toEqual(["b", "c", "d"]);
    layout = setHidden(columns, layout, "b", true);
    layout = setHidden(columns, layout, "c", true);
    expect(keys(setHidden(columns, layout, "d", true))).toEqual(["d"]);
    expect(keys(setHidden(columns, layout, "a", false))).toEqual(["a", "d"]);
  });

  it("keeps up with columns the table gains or loses", () => {
    const layout = { order: ["gone", "c", "a"], widths: { gone: 99 }, hidden: ["gone"] };
    expect(keys(layout)).toEqual(["c", "a", "b", "d"]);
  });

  it("is remembered per table and survives junk in storage", () => {
    const layout = resizeColumn(moveColumn(columns, emptyLayout(), "c", "a"), "a", 500);
    saveLayout("pages", layout);
    expect(loadLayout("pages")).toEqual(layout);
    expect(loadLayout("params")).toEqual(emptyLayout());
    localStorage.setItem("dustpan.columns.params", "{not json");
    expect(loadLayout("params")).toEqual(emptyLayout());
    localStorage.setItem("dustpan.columns.params", JSON.stringify({ order: [1, "a"], widths: { a: "x", b: 5 }, hidden: null }));
    expect(loadLayout("params")).toEqual({ order: ["a"], widths: { b: MIN_WIDTH }, hidden: [] });
  });
});

describe("fitting a table into a narrow window", () => {
  // The clusters table's columns and default widths: 1004 px in all.
  const clusters: Column[] = [
    { key: "cluster", title: "Cluster", kind: "number" },
    { key: "preferred_url", title: "Preferred URL", kind: "url" },
    { key: "members", title: "Members", kind: "number" },
    { key: "duplicates", title: "Duplicates", kind: "number" },
    { key: "cause", title: "Cause", kind: "text" },
    { key: "fix", title: "Fix", kind: "text" },
  ];
  const widths = (shown: { width: number }[]) => shown.map((s) => s.width);
  const sum = (shown: { width: number }[]) => shown.reduce((n, s) => n + s.width, 0);

  it("leaves a table that fits, or that cannot be fitted, as it is", () => {
    const shown = arrange(clusters, emptyLayout());
    expect(sum(shown)).toBe(1004);
    expect(fitWidths(shown, {}, 1200)).toBe(shown);
    expect(fitWidths(shown, {}, 0)).toBe(shown);
    // Below the floors (and the last column) nothing gives: the table scrolls sideways.
    expect(fitWidths(shown, {}, 500)).toBe(shown);
  });

  it("narrows text first, then numbers, the URL column last, and keeps the last column", () => {
    const shown = arrange(clusters, emptyLayout());
    const fitted = fitWidths(shown, {}, 800);
    expect(sum(fitted)).toBe(800);
    expect(widths(fitted)).toEqual([80, 300, 80, 80, 100, 160]);
    // Just too wide: the URL column keeps its whole width.
    const gentle = fitWidths(shown, {}, 904);
    expect(widths(gentle)).toEqual([90, 360, 90, 104, 100, 160]);
    // A URL column keeps the origin and the path's end: `http://site.test:8480/a-b…` no more.
    expect(FIT_FLOORS.url).toBeGreaterThanOrEqual(280);
    for (const s of fitted) expect(s.width).toBeGreaterThanOrEqual(FIT_FLOORS[s.column.kind]);
  });

  it("never narrows a column the user resized", () => {
    const layout = resizeColumn(emptyLayout(), "preferred_url", 400);
    const shown = arrange(clusters, layout);
    const fitted = fitWidths(shown, layout.widths, 900);
    expect(fitted[1].width).toBe(400);
    expect(sum(fitted)).toBe(900);
  });
});
