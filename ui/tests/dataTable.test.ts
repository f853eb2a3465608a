import { fireEvent, screen, waitFor } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import type { TableQuery } from "../src/lib/api";
import DataTable from "../src/components/DataTable.svelte";
import { FakeBackend, pagesTable } from "./fakeBackend";
import { renderWith } from "./render";

function setup(count = 100_000) {
  const backend = new FakeBackend();
  backend.tables.set("pages", pagesTable(count));
  const view = renderWith(DataTable, { auditId: 7, table: "pages", debounceMs: 0 }, backend);
  return { backend, ...view };
}

function queries(backend: FakeBackend): TableQuery[] {
  return backend.callsOf("queryTable").map((args) => args[1] as TableQuery);
}

function scroller(): HTMLElement {
  return screen.getByRole("grid");
}

function scrollTo(top: number): Promise<boolean> {
  const element = scroller();
  Object.defineProperty(element, "scrollTop", { configurable: true, writable: true, value: top });
  return fireEvent.scroll(element);
}

describe("DataTable", () => {
  it("says Loading… until the first page answers, never 0 rows", async () => {
    const backend = new FakeBackend();
    backend.tables.set("pages", pagesTable(50));
    backend.holdQueries = true;
    renderWith(DataTable, { auditId: 7, table: "pages", debounceMs: 0 }, backend);
    await waitFor(() => expect(backend.callsOf("queryTable")).toHaveLength(1));
    expect(screen.getByTestId("table-matched").textContent?.trim()).toBe("Loading…");
    expect(screen.queryByText(/No rows/)).toBeNull();
    backend.holdQueries = false;
    backend.release();
    await waitFor(() => expect(screen.getByTestId("table-matched").textContent).toContain("50 rows"));
  });

  it("says URL-variant rules and verdicts in words, the code in the tooltip", async () => {
    const backend = new FakeBackend();
    backend.tables.set("urlVariants", {
      columns: [
        { key: "rule", title: "Rule", kind: "text" },
        { key: "samples", title: "Samples", kind: "number" },
        { key: "verdict", title: "Verdict", kind: "text" },
      ],
      rows: [
        ["host_www", 3, "redirect_permanent"],
        ["ip_host", 0, "not_probed"],
        ["a_rule_of_tomorrow", 1, "duplicate"],
      ],
      keys: ["host_www", "ip_host", "a_rule_of_tomorrow"],
    });
    renderWith(DataTable, { auditId: 7, table: "urlVariants", debounceMs: 0 }, backend);
    const rows = await screen.findAllByTestId("table-row");
    const cell = (row: number, column: string) =>
      rows[row].querySelector(`[data-column="${column}"]`) as HTMLElement;
    expect(cell(0, "rule").textContent?.trim()).toBe("Other host name (www. added or removed)");
    expect(cell(0, "rule").title).toBe("Other host name (www. added or removed) (host_www)");
    expect(cell(0, "verdict").textContent?.trim()).toBe("Permanent redirect (301, 308)");
    expect(cell(1, "verdict").textContent?.trim()).toBe("Not tested (no sample)");
    expect(cell(1, "verdict").title).toContain("(not_probed)");
    // A code without words stays as it is.
    expect(cell(2, "rule").textContent?.trim()).toBe("a_rule_of_tomorrow");
    expect(cell(2, "rule").title).toBe("a_rule_of_tomorrow");
  });

  it("renders only a window of a 100,000-row table and says how many rows there are", async () => {
    const { backend } = setup();
    await screen.findByText("https://site.test/p/0");
    const rows = screen.getAllByTestId("table-row");
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(60);
    expect(screen.getByTestId("table-matched").textContent).toContain("100,000 rows");
    expect(queries(backend)).toEqual([
      { table: "pages", sort: null, search: null, filters: [], offset: 0, limit: 200 },
    ]);
    // The body is as tall as every row, so the scrollbar is right.
    const body = scroller().querySelector(".body") as HTMLElement;
    expect(body.style.height).toBe(`${100_000 * 28}px`);
  });

  it("fetches the page under the viewport when scrolled", async () => {
    const { backend } = setup();
    await screen.findByText("https://site.test/p/0");
    await scrollTo(50_000 * 28);
    await screen.findByText("https://site.test/p/50000");
    const offsets = queries(backend).map((query) => query.offset);
    expect(offsets).toContain(50_000);
    expect(offsets).not.toContain(200);
    const row = screen.getByText("https://site.test/p/50000").closest("[data-testid=table-row]") as HTMLElement;
    expect(row.style.transform).toBe(`translateY(${50_000 * 28}px)`);
    expect(screen.queryByText("https://site.test/p/0")).toBeNull();
  });

  it("asks only for where a fast scroll stops", async () => {
    const { backend } = setup();
    await screen.findByText("https://site.test/p/0");
    for (let row = 1000; row <= 90_000; row += 1000) await scrollTo(row * 28);
    await screen.findByText("https://site.test/p/90000");
    const offsets = queries(backend).map((query) => query.offset);
    // The overscan above row 90,000 reaches into the page before it.
    expect(offsets).toEqual([0, 89_800, 90_000]);
  });

  it("sorts by the clicked header, ascending then descending", async () => {
    const { backend } = setup(1000);
    await screen.findByText("https://site.test/p/0");
    await fireEvent.click(screen.getByTestId("sort-status"));
    await waitFor(() => expect(queries(backend).at(-1)?.sort).toEqual({ column: "status", descending: false }));
    await fireEvent.click(screen.getByTestId("sort-status"));
    await waitFor(() => expect(queries(backend).at(-1)?.sort).toEqual({ column: "status", descending: true }));
    expect(queries(backend).at(-1)?.offset).toBe(0);
    // Descending by status: the 404s come first.
    await waitFor(() => {
      const first = screen.getAllByTestId("table-row")[0];
      expect(first.textContent).toContain("404");
    });
    expect(screen.getByTestId("sort-status").closest("[role=columnheader]")?.getAttribute("aria-sort")).toBe(
      "descending",
    );
    await fireEvent.click(screen.getByTestId("sort-title"));
    await waitFor(() => expect(queries(backend).at(-1)?.sort).toEqual({ column: "title", descending: false }));
  });

  it("searches and filters, and shows how many of the rows match", async () => {
    const { backend } = setup(1000);
    await screen.findByText("https://site.test/p/0");
    await fireEvent.input(screen.getByTestId("table-search"), { target: { value: "Page 99" } });
    await waitFor(() => expect(queries(backend).at(-1)?.search).toBe("Page 99"));
    // "Page 99" and "Page 990" .. "Page 999".
    await waitFor(() => expect(screen.getByTestId("table-matched").textContent).toContain("11 of 1,000 rows match"));
    await fireEvent.input(screen.getByTestId("filter-status"), { target: { value: "404" } });
    await waitFor(() =>
      expect(queries(backend).at(-1)).toMatchObject({
        search: "Page 99",
        filters: [{ column: "status", op: "eq", value: "404", upper: null }],
      }),
    );
    await waitFor(() => expect(screen.getByTestId("table-matched").textContent).toContain("1 of 1,000 rows matches"));
    expect(screen.getAllByTestId("table-row")).toHaveLength(1);
  });

  it("exports the view through the save dialog", async () => {
    const { backend } = setup(250);
    await screen.findByText("https://site.test/p/0");
    await fireEvent.click(screen.getByTestId("export-csv"));
    await screen.findByText("Exported 250 rows to /tmp/out.csv");
    expect(backend.callsOf("exportView")).toEqual([
      [7, { table: "pages", sort: null, search: null, filters: [] }, "/tmp/out.csv"],
    ]);
    expect(backend.written.get("/tmp/out.csv")).toHaveLength(251);
  });

  it("does nothing when the save dialog is cancelled", async () => {
    const { backend } = setup(10);
    backend.savePath = null;
    await screen.findByText("https://site.test/p/0");
    await fireEvent.click(screen.getByTestId("export-csv"));
    await waitFor(() => expect(backend.callsOf("pickSavePath")).toHaveLength(1));
    expect(backend.callsOf("exportTable")).toHaveLength(0);
  });

  it("shows a failed query as text", async () => {
    const backend = new FakeBackend();
    renderWith(DataTable, { auditId: 7, table: "params" }, backend);
    expect((await screen.findByTestId("error-message")).textContent).toBe("unknown table params");
  });
});
