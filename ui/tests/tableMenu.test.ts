// Rows: selection with click, Ctrl-click and Shift-click, the app's own context menu (open in
// browser, copy URL / cell / rows, filter to a value) and Ctrl+C; URLs shown decoded, copied exact.
import { fireEvent, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it } from "vitest";
import type { Cell, Column, TableQuery } from "../src/lib/api";
import DataTable from "../src/components/DataTable.svelte";
import { FakeBackend, type FakeTable } from "./fakeBackend";
import { renderWith } from "./render";

function linksTable(): FakeTable {
  const columns: Column[] = [
    { key: "title", title: "Title", kind: "text" },
    { key: "address", title: "Address", kind: "url" },
    { key: "status_code", title: "Status Code", kind: "number" },
  ];
  const rows: Cell[][] = [
    ["Umlaut", "https://a.test/%C3%A4rger?x=%2F", 200],
    ["Tab", "https://a.test/tab", 301],
    ["Mail", "mailto:someone@a.test", null],
    ["Three", "https://a.test/3", 200],
    ["Four", "https://a.test/4", 404],
  ];
  return { columns, rows, keys: rows.map((_, i) => `k${i}`) };
}

function setup() {
  const backend = new FakeBackend();
  backend.tables.set("pages", linksTable());
  const view = renderWith(DataTable, { auditId: 3, table: "pages", debounceMs: 0 }, backend);
  return { backend, ...view };
}

function rows(): HTMLElement[] {
  return screen.getAllByTestId("table-row");
}

function cell(row: number, column: string): HTMLElement {
  return rows()[row].querySelector(`[data-column="${column}"]`) as HTMLElement;
}

async function menuFor(row: number, column: string): Promise<HTMLElement> {
  await fireEvent.contextMenu(cell(row, column), { clientX: 40, clientY: 60 });
  return screen.findByTestId("context-menu");
}

describe("rows and their menu", () => {
  beforeEach(() => localStorage.clear());

  it("shows URLs decoded for reading and keeps the exact URL in the title", async () => {
    setup();
    await screen.findByText("Umlaut");
    expect(cell(0, "address").textContent?.trim()).toBe("https://a.test/ärger?x=%2F");
    expect(cell(0, "address").getAttribute("title")).toBe("https://a.test/%C3%A4rger?x=%2F");
  });

  it("replaces the web view's menu with its own and copies the exact URL", async () => {
    const { backend } = setup();
    await screen.findByText("Umlaut");
    const event = new MouseEvent("contextmenu", { bubbles: true, cancelable: true, clientX: 5, clientY: 5 });
    cell(0, "address").dispatchEvent(event);
    expect(event.defaultPrevented).toBe(true);
    const menu = await screen.findByTestId("context-menu");
    expect(menu.getAttribute("role")).toBe("menu");
    await fireEvent.click(screen.getByTestId("context-copy-url"));
    await waitFor(() => expect(backend.clipboard).toEqual(["https://a.test/%C3%A4rger?x=%2F"]));
    expect(screen.queryByTestId("context-menu")).toBeNull();
    expect((await screen.findByTestId("action-result")).textContent).toBe("Copied URL");
  });

  it("opens http(s) URLs in the browser, and not other schemes", async () => {
    const { backend } = setup();
    await screen.findByText("Umlaut");
    await menuFor(1, "title");
    // The row's URL, from a click on another of its cells.
    await fireEvent.click(screen.getByTestId("context-open"));
    await waitFor(() => expect(backend.opened).toEqual(["https://a.test/tab"]));
    await menuFor(2, "address");
    expect((screen.getByTestId("context-open") as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByTestId("context-copy-url") as HTMLButtonElement).disabled).toBe(false);
    await fireEvent.keyDown(screen.getByTestId("context-menu"), { key: "Escape" });
    expect(screen.queryByTestId("context-menu")).toBeNull();
  });

  it("selects with Shift and Ctrl clicks and copies the selection as TSV", async () => {
    const { backend } = setup();
    await screen.findByText("Umlaut");
    await fireEvent.click(cell(0, "title"));
    await fireEvent.click(cell(2, "title"), { shiftKey: true });
    await fireEvent.click(cell(4, "title"), { ctrlKey: true });
    await fireEvent.click(cell(1, "title"), { ctrlKey: true });
    expect(rows().map((r) => r.getAttribute("aria-selected"))).toEqual(["true", "false", "true", "false", "true"]);
    expect(screen.getByTestId("table-selected").textContent).toBe("3 selected");
    const menu = await menuFor(2, "status_code");
    expect(menu.textContent).toContain("Copy 3 rows as TSV");
    await fireEvent.click(screen.getByTestId("context-copy-rows"));
    await waitFor(() =>
      expect(backend.clipboard).toEqual([
        "Umlaut\thttps://a.test/%C3%A4rger?x=%2F\t200\nMail\tmailto:someone@a.test\t\nFour\thttps://a.test/4\t404",
      ]),
    );
    expect(screen.getByTestId("action-result").textContent).toBe("Copied 3 rows");
  });

  it("copies the selected rows with Ctrl+C, in the columns' shown order", async () => {
    const { backend } = setup();
    await screen.findByText("Umlaut");
    await fireEvent.click(screen.getByTestId("column-menu-status_code"));
    await fireEvent.click(screen.getByTestId("column-menu-left"));
    await fireEvent.click(cell(3, "title"));
    await fireEvent.click(cell(4, "title"), { shiftKey: true });
    await fireEvent.keyDown(screen.getByRole("grid"), { key: "c", ctrlKey: true });
    await waitFor(() => expect(backend.clipboard).toEqual(["Three\t200\thttps://a.test/3\nFour\t404\thttps://a.test/4"]));
  });

  it("a right-click outside the selection selects that row alone", async () => {
    setup();
    await screen.findByText("Umlaut");
    await fireEvent.click(cell(0, "title"));
    await fireEvent.click(cell(1, "title"), { shiftKey: true });
    const menu = await menuFor(3, "title");
    expect(menu.textContent).toContain("Copy row as TSV");
    expect(rows().map((r) => r.getAttribute("aria-selected"))).toEqual(["false", "false", "false", "true", "false"]);
  });

  it("filters a column to the clicked cell's value", async () => {
    const { backend } = setup();
    await screen.findByText("Umlaut");
    await menuFor(3, "status_code");
    await fireEvent.click(screen.getByTestId("context-filter"));
    await waitFor(() =>
      expect((backend.callsOf("queryTable").at(-1)?.[1] as TableQuery).filters).toEqual([
        { column: "status_code", op: "eq", value: "200", upper: null },
      ]),
    );
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(screen.getByTestId("filter-chip").textContent).toContain("Status Code = 200");
    expect((screen.getByTestId("filter-status_code") as HTMLInputElement).value).toBe("200");
    await menuFor(0, "address");
    await fireEvent.click(screen.getByTestId("context-filter"));
    await waitFor(() => expect(rows()).toHaveLength(1));
  });

  it("keeps a filter to an empty number cell while another box is typed in", async () => {
    const { backend } = setup();
    await screen.findByText("Umlaut");
    await menuFor(2, "status_code");
    await fireEvent.click(screen.getByTestId("context-filter"));
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(screen.getByTestId("filter-chip").textContent).toContain("Status Code is empty");
    await fireEvent.input(screen.getByTestId("filter-title"), { target: { value: "mail" } });
    await waitFor(() =>
      expect((backend.callsOf("queryTable").at(-1)?.[1] as TableQuery).filters).toEqual([
        { column: "status_code", op: "equals", value: "", upper: null },
        { column: "title", op: "contains", value: "mail", upper: null },
      ]),
    );
    expect(screen.getByTestId("filter-status_code").getAttribute("aria-invalid")).toBeNull();
  });

  it("opens the menu from the keyboard on the active row", async () => {
    const { backend } = setup();
    await screen.findByText("Umlaut");
    const grid = screen.getByRole("grid");
    grid.focus();
    await fireEvent.keyDown(grid, { key: "ArrowDown" });
    await fireEvent.keyDown(grid, { key: "ArrowDown" });
    await fireEvent.keyDown(grid, { key: "F10", shiftKey: true });
    await screen.findByTestId("context-menu");
    // The first item has focus; arrows move it.
    expect(document.activeElement?.getAttribute("data-testid")).toBe("context-open");
    await fireEvent.keyDown(document.activeElement as Element, { key: "ArrowDown" });
    expect(document.activeElement?.getAttribute("data-testid")).toBe("context-copy-url");
    await fireEvent.click(document.activeElement as Element);
    await waitFor(() => expect(backend.clipboard).toEqual(["https://a.test/tab"]));
  });

  it("says when the clipboard refuses", async () => {
    const { backend } = setup();
    backend.copyText = async () => {
      throw new Error("denied");
    };
    await screen.findByText("Umlaut");
    await menuFor(0, "address");
    await fireEvent.click(screen.getByTestId("context-copy-url"));
    expect((await screen.findByTestId("action-error")).textContent).toBe("Could not copy: denied");
  });
});
