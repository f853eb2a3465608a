import { describe, expect, it } from "vitest";
import { PagedRows, pagesFor, scrollToReveal, visibleRange } from "../src/lib/virtual";
import type { TablePage } from "../src/lib/api";

describe("visibleRange", () => {
  it("covers the viewport plus overscan", () => {
    // 28 px rows, 280 px viewport at the top: rows 0..9 visible, 4 more below.
    expect(visibleRange(0, 280, 28, 100_000, 4)).toEqual({ start: 0, end: 14 });
    // Scrolled to row 5000 (partly into it): rows 5000..5010 visible.
    expect(visibleRange(5000 * 28 + 10, 280, 28, 100_000, 4)).toEqual({ start: 4996, end: 5015 });
  });

  it("clamps at the end and for small tables", () => {
    expect(visibleRange(99_990 * 28, 280, 28, 100_000, 4)).toEqual({ start: 99_986, end: 100_000 });
    expect(visibleRange(0, 1000, 28, 3, 8)).toEqual({ start: 0, end: 3 });
    expect(visibleRange(10_000, 280, 28, 3, 0)).toEqual({ start: 2, end: 3 });
  });

  it("is empty for no rows and renders a row for a zero-height viewport", () => {
    expect(visibleRange(0, 280, 28, 0)).toEqual({ start: 0, end: 0 });
    expect(visibleRange(0, 0, 28, 50, 0)).toEqual({ start: 0, end: 1 });
  });

  it("keeps the DOM small however long the table", () => {
    for (let scroll = 0; scroll < 100_000 * 28; scroll += 777_777) {
      const range = visibleRange(scroll, 900, 28, 100_000, 8);
      expect(range.end - range.start).toBeLessThanOrEqual(Math.ceil(900 / 28) + 1 + 16);
    }
  });
});

describe("pagesFor", () => {
  it("lists the pages holding a range", () => {
    expect(pagesFor({ start: 0, end: 14 }, 200)).toEqual([0]);
    expect(pagesFor({ start: 190, end: 210 }, 200)).toEqual([0, 1]);
    expect(pagesFor({ start: 200, end: 400 }, 200)).toEqual([1]);
    expect(pagesFor({ start: 5, end: 5 }, 200)).toEqual([]);
  });
});

describe("scrollToReveal", () => {
  it("scrolls only when the row is outside the viewport", () => {
    expect(scrollToReveal(5, 0, 280, 28)).toBe(0);
    expect(scrollToReveal(10, 0, 280, 28)).toBe(28);
    expect(scrollToReveal(3, 280, 280, 28)).toBe(84);
  });
});

function page(offset: number, limit: number, matched: number): TablePage {
  const end = Math.min(matched, offset + limit);
  const rows = [];
  const rowKeys = [];
  for (let i = offset; i < end; i++) {
    rows.push([i, `row ${i}`]);
    rowKeys.push(`k${i}`);
  }
  return {
    table: "pages",
    columns: [
      { key: "n", title: "N", kind: "number" },
      { key: "t", title: "T", kind: "text" },
    ],
    total: matched,
    matched,
    offset,
    rows,
    rowKeys,
  };
}

describe("PagedRows", () => {
  it("fetches each needed page once and serves rows from it", async () => {
    const asked: number[] = [];
    const paged = new PagedRows(
      async (offset, limit) => {
        asked.push(offset);
        return page(offset, limit, 1000);
      },
      () => {},
      200,
    );
    await paged.start();
    expect(asked).toEqual([0]);
    expect(paged.state.matched).toBe(1000);
    await Promise.all([paged.ensure({ start: 190, end: 420 }), paged.ensure({ start: 190, end: 420 })]);
    expect(asked).toEqual([0, 200, 400]);
    expect(paged.row(399)).toEqual([399, "row 399"]);
    expect(paged.key(401)).toBe("k401");
    expect(paged.row(650)).toBeUndefined();
  });

  it("drops answers to a query that was replaced", async () => {
    const pending: ((value: TablePage) => void)[] = [];
    const paged = new PagedRows(
      (offset, limit) => new Promise((resolve) => pending.push(() => resolve(page(offset, limit, 50)))),
      () => {},
      200,
    );
    const first = paged.start();
    paged.reset(async (offset, limit) => page(offset, limit, 7));
    await paged.start();
    pending[0](page(0, 200, 50));
    await first;
    expect(paged.state.matched).toBe(7);
    expect(paged.row(20)).toBeUndefined();
  });

  it("keeps at most maxPages pages, dropping the farthest", async () => {
    const paged = new PagedRows(async (offset, limit) => page(offset, limit, 10_000), () => {}, 100, 3);
    for (const start of [0, 100, 200, 300, 900]) await paged.ensure({ start, end: start + 1 });
    expect(paged.cachedPages).toBe(3);
    expect(paged.row(900)).toBeDefined();
    expect(paged.row(0)).toBeUndefined();
  });

  it("reports a failed fetch as an error", async () => {
    const paged = new PagedRows(() => Promise.reject("table gone"), () => {});
    await paged.start();
    expect(paged.state.error).toBe("table gone");
  });
});
