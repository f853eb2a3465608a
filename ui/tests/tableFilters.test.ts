// Column filters in the table: quick filters parsed into operators, the editor, chips, errors,
// and Export writing exactly the filtered view.
import { fireEvent, screen, waitFor, within } from "@testing-library/svelte";
import { beforeEach, describe, expect, it } from "vitest";
import type { TableQuery } from "../src/lib/api";
import DataTable from "../src/components/DataTable.svelte";
import { FakeBackend, matchingRows, pagesTable } from "./fakeBackend";
import { renderWith } from "./render";

function setup(count = 1000) {
  const backend = new FakeBackend();
  backend.tables.set("pages", pagesTable(count));
  const view = renderWith(DataTable, { auditId: 7, table: "pages", debounceMs: 0 }, backend);
  return { backend, ...view };
}

function lastQuery(backend: FakeBackend): TableQuery {
  return backend.callsOf("queryTable").at(-1)?.[1] as TableQuery;
}

function chips(): string[] {
  return screen.queryAllByTestId("filter-chip").map((chip) => chip.textContent?.replace("×", "").trim() ?? "");
}

describe("column filters", () => {
  beforeEach(() => localStorage.clear());

  it("reads >=300 in a number column's quick filter as ≥ 300 and shows it as a chip", async () => {
    const { backend } = setup();
    await screen.findByText("https://site.test/p/0");
    await fireEvent.input(screen.getByTestId("filter-status"), { target: { value: ">=300" } });
    await waitFor(() =>
      expect(lastQuery(backend).filters).toEqual([{ column: "status", op: "ge", value: "300", upper: null }]),
    );
    // Every tenth page answers 404.
    await waitFor(() => expect(screen.getByTestId("table-matched").textContent).toContain("100 of 1,000 rows match"));
    expect(chips()).toEqual(["Status ≥ 300"]);
  });

  it("filters text with contains by default, ignoring case", async () => {
    const { backend } = setup();
    await screen.findByText("https://site.test/p/0");
    await fireEvent.input(screen.getByTestId("filter-url"), { target: { value: "P/99" } });
    await waitFor(() =>
      expect(lastQuery(backend).filters).toEqual([{ column: "url", op: "contains", value: "P/99", upper: null }]),
    );
    // p/99 and p/990 .. p/999.
    await waitFor(() => expect(screen.getByTestId("table-matched").textContent).toContain("11 of 1,000 rows match"));
  });

  it("marks a quick filter it cannot read and sends nothing for it", async () => {
    const { backend } = setup();
    await screen.findByText("https://site.test/p/0");
    const box = screen.getByTestId("filter-status");
    await fireEvent.input(box, { target: { value: ">=abc" } });
    await waitFor(() => expect(box.getAttribute("aria-invalid")).toBe("true"));
    expect(box.getAttribute("title")).toContain("needs a number");
    expect(lastQuery(backend).filters).toEqual([]);
    expect(screen.queryByTestId("filter-chips")).toBeNull();
  });

  it("sets a between filter in the editor, and removes it from its chip", async () => {
    const { backend } = setup();
    await screen.findByText("https://site.test/p/0");
    await fireEvent.click(screen.getByTestId("filter-edit-depth"));
    const editor = await screen.findByTestId("filter-editor");
    await fireEvent.change(within(editor).getByTestId("filter-op"), { target: { value: "between" } });
    await fireEvent.input(within(editor).getByTestId("filter-value"), { target: { value: "5" } });
    await fireEvent.input(await within(editor).findByTestId("filter-value2"), { target: { value: "2" } });
    await fireEvent.click(within(editor).getByTestId("filter-apply"));
    await waitFor(() =>
      expect(lastQuery(backend).filters).toEqual([{ column: "depth", op: "between", value: "5", upper: "2" }]),
    );
    expect(screen.queryByTestId("filter-editor")).toBeNull();
    expect(chips()).toEqual(["Depth between 5 and 2"]);
    // The quick filter shows it in its own syntax.
    expect((screen.getByTestId("filter-depth") as HTMLInputElement).value).toBe("5..2");
    // Depths 2, 3, 4, 5 of 0..6.
    const expected = matchingRows(backend.tables.get("pages")!, lastQuery(backend)).length;
    expect(expected).toBe(572);
    await waitFor(() => expect(screen.getByTestId("table-matched").textContent).toContain("572 of 1,000 rows match"));
    await fireEvent.click(screen.getByTestId("filter-chip-remove"));
    await waitFor(() => expect(lastQuery(backend).filters).toEqual([]));
    expect((screen.getByTestId("filter-depth") as HTMLInputElement).value).toBe("");
    expect(screen.queryByTestId("filter-chips")).toBeNull();
  });

  it("refuses a number operator without a number in the editor", async () => {
    const { backend } = setup(10);
    await screen.findByText("https://site.test/p/0");
    await fireEvent.click(screen.getByTestId("filter-edit-status"));
    const editor = await screen.findByTestId("filter-editor");
    await fireEvent.input(within(editor).getByTestId("filter-value"), { target: { value: "lots" } });
    await fireEvent.click(within(editor).getByTestId("filter-apply"));
    expect((await within(editor).findByTestId("filter-editor-error")).textContent).toContain("needs a number");
    expect(lastQuery(backend).filters).toEqual([]);
    await fireEvent.click(within(editor).getByTestId("filter-cancel"));
    expect(screen.queryByTestId("filter-editor")).toBeNull();
  });

  it("combines filters, clears them all, and shows a bad pattern's error as text", async () => {
    const { backend } = setup();
    await screen.findByText("https://site.test/p/0");
    await fireEvent.input(screen.getByTestId("filter-status"), { target: { value: "404" } });
    await fireEvent.input(screen.getByTestId("filter-title"), { target: { value: "/page 1[0-9]$/" } });
    await waitFor(() => expect(chips()).toEqual(["Status = 404", "Title matches /page 1[0-9]$/"]));
    // Of pages 10 .. 19 only page 10 answers 404.
    await waitFor(() => expect(screen.getByTestId("table-matched").textContent).toContain("1 of 1,000 rows matches"));
    await fireEvent.click(screen.getByTestId("filter-chips-clear"));
    await waitFor(() => expect(lastQuery(backend).filters).toEqual([]));
    await fireEvent.input(screen.getByTestId("filter-title"), { target: { value: "/(unclosed/" } });
    expect((await screen.findByTestId("error-message")).textContent).toContain("not valid");
  });

  it("exports exactly the filtered, sorted view and says so", async () => {
    const { backend } = setup(300);
    await screen.findByText("https://site.test/p/0");
    await fireEvent.input(screen.getByTestId("filter-status"), { target: { value: ">=300" } });
    await fireEvent.click(screen.getByTestId("sort-depth"));
    await waitFor(() => expect(screen.getByTestId("table-matched").textContent).toContain("30 of 300 rows match"));
    await fireEvent.click(screen.getByTestId("export-csv"));
    await screen.findByText("Exported 30 rows (filtered view) to /tmp/out.csv");
    const [[, view]] = backend.callsOf("exportView");
    expect(view).toEqual({
      table: "pages",
      sort: { column: "depth", descending: false },
      search: null,
      filters: [{ column: "status", op: "ge", value: "300", upper: null }],
    });
    const written = backend.written.get("/tmp/out.csv")!;
    expect(written[0]).toEqual(["URL", "Status", "Title", "Depth"]);
    expect(written).toHaveLength(31);
    expect(written.slice(1).every((row) => row[1] === "404")).toBe(true);
    const depths = written.slice(1).map((row) => Number(row[3]));
    expect(depths).toEqual([...depths].sort((a, b) => a - b));
  });
});
