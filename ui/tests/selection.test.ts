import { describe, expect, it } from "vitest";
import { clickRow, NO_SELECTION, selectedRows, toTsv } from "../src/lib/selection";

describe("row selection", () => {
  it("selects one row on a click, toggles with Ctrl, extends with Shift", () => {
    let s = clickRow(NO_SELECTION, 3);
    expect(selectedRows(s)).toEqual([3]);
    s = clickRow(s, 7, { toggle: true });
    expect(selectedRows(s)).toEqual([3, 7]);
    s = clickRow(s, 3, { toggle: true });
    expect(selectedRows(s)).toEqual([7]);
    // Ctrl-click moves the anchor, even when it deselects.
    s = clickRow(s, 4, { shift: true });
    expect(selectedRows(s)).toEqual([3, 4]);
    s = clickRow(clickRow(s, 7), 4, { shift: true });
    expect(selectedRows(s)).toEqual([4, 5, 6, 7]);
    // Shift extends from the anchor, not from the last shift-click.
    s = clickRow(s, 9, { shift: true });
    expect(selectedRows(s)).toEqual([7, 8, 9]);
    // Ctrl+Shift adds a range to the selection.
    s = clickRow(clickRow(s, 0, { toggle: true }), 1, { shift: true, toggle: true });
    expect(selectedRows(s)).toEqual([0, 1, 7, 8, 9]);
    expect(selectedRows(clickRow(s, 2))).toEqual([2]);
    // Shift with no anchor selects the row.
    expect(selectedRows(clickRow(NO_SELECTION, 5, { shift: true }))).toEqual([5]);
  });

  it("copies rows as TSV with exact cells", () => {
    expect(
      toTsv([
        ["https://a.test/%C3%A4", 200, null],
        ["tab\there", -1, "line\r\nbreak"],
      ]),
    ).toBe("https://a.test/%C3%A4\t200\t\ntab here\t-1\tline  break");
    expect(toTsv([])).toBe("");
  });
});
