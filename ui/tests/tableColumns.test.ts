// Columns: resized by dragging the header's edge (or with arrow keys), reordered by dragging a
// header or from its menu, hidden and shown, the first one frozen, all remembered per table.
import { fireEvent, screen, waitFor } from "@testing-library/svelte";
import { beforeEach, describe, expect, it } from "vitest";
import DataTable from "../src/components/DataTable.svelte";
import { loadLayout } from "../src/lib/columns";
import { FakeBackend, pagesTable } from "./fakeBackend";
import { renderWith } from "./render";

function setup() {
  const backend = new FakeBackend();
  backend.tables.set("pages", pagesTable(50));
  const view = renderWith(DataTable, { auditId: 1, table: "pages", debounceMs: 0 }, backend);
  return { backend, ...view };
}

function headers(): string[] {
  return screen.getAllByRole("columnheader").map((h) => h.getAttribute("data-column") ?? "");
}

function template(): string {
  return (screen.getAllByRole("columnheader")[0].parentElement as HTMLElement).style.gridTemplateColumns;
}

function width(key: string): number {
  return Number(screen.getByTestId(`resize-${key}`).getAttribute("data-width"));
}

describe("columns", () => {
  beforeEach(() => localStorage.clear());

  it("resize by dragging the header's edge, and with arrow keys", async () => {
    setup();
    await screen.findByText("https://site.test/p/0");
    const before = width("title");
    const handle = screen.getByTestId("resize-title");
    await fireEvent.mouseDown(handle, { clientX: 500 });
    await fireEvent.mouseMove(window, { clientX: 540 });
    await fireEvent.mouseMove(window, { clientX: 580 });
    await fireEvent.mouseUp(window, { clientX: 580 });
    expect(width("title")).toBe(before + 80);
    expect(template()).toContain(`${before + 80}px`);
    // Rows follow the header.
    const row = screen.getAllByTestId("table-row")[0];
    expect(row.style.gridTemplateColumns).toBe(template());
    // Moving the pointer after release changes nothing.
    await fireEvent.mouseMove(window, { clientX: 900 });
    // A right-button press does not start a resize.
    await fireEvent.mouseDown(handle, { clientX: 500, button: 2 });
    await fireEvent.mouseMove(window, { clientX: 900 });
    expect(width("title")).toBe(before + 80);
    await fireEvent.keyDown(handle, { key: "ArrowLeft" });
    expect(width("title")).toBe(before + 64);
    await fireEvent.dblClick(handle);
    expect(width("title")).toBe(before);
  });

  it("reorder by dragging one header onto another, or from the column menu", async () => {
    setup();
    await screen.findByText("https://site.test/p/0");
    expect(headers()).toEqual(["url", "status", "title", "depth"]);
    const [url, , title] = screen.getAllByRole("columnheader");
    await fireEvent.dragStart(url);
    await fireEvent.dragOver(title);
    await fireEvent.drop(title);
    expect(headers()).toEqual(["status", "title", "url", "depth"]);
    // The cells follow their headers.
    const first = screen.getAllByTestId("table-row")[0];
    expect([...first.querySelectorAll("[data-column]")].map((c) => c.getAttribute("data-column"))).toEqual(headers());
    await fireEvent.click(screen.getByTestId("column-menu-depth"));
    await fireEvent.click(screen.getByTestId("column-menu-left"));
    expect(headers()).toEqual(["status", "title", "depth", "url"]);
    await fireEvent.click(screen.getByTestId("column-menu-status"));
    expect((screen.getByTestId("column-menu-left") as HTMLButtonElement).disabled).toBe(true);
  });

  it("hide from the header menu and show again from the chooser", async () => {
    setup();
    await screen.findByText("https://site.test/p/0");
    await fireEvent.click(screen.getByTestId("column-menu-status"));
    await fireEvent.click(screen.getByTestId("column-menu-hide"));
    expect(headers()).toEqual(["url", "title", "depth"]);
    expect(screen.queryByTestId("filter-status")).toBeNull();
    await fireEvent.click(screen.getByTestId("columns-button"));
    const toggle = screen.getByTestId("column-toggle-status") as HTMLInputElement;
    expect(toggle.checked).toBe(false);
    await fireEvent.click(toggle);
    expect(headers()).toEqual(["url", "status", "title", "depth"]);
  });

  it("freeze the first column shown", async () => {
    setup();
    await screen.findByText("https://site.test/p/0");
    const frozen = () => [...document.querySelectorAll(".row.head .frozen")].map((c) => c.getAttribute("data-column"));
    expect(frozen()).toEqual(["url"]);
    const row = screen.getAllByTestId("table-row")[0];
    expect(row.querySelector(".frozen")?.getAttribute("data-column")).toBe("url");
    await fireEvent.click(screen.getByTestId("column-menu-url"));
    await fireEvent.click(screen.getByTestId("column-menu-hide"));
    expect(frozen()).toEqual(["status"]);
  });

  it("are remembered per table and restored when it opens again", async () => {
    const first = setup();
    await screen.findByText("https://site.test/p/0");
    await fireEvent.click(screen.getByTestId("column-menu-title"));
    await fireEvent.click(screen.getByTestId("column-menu-left"));
    await fireEvent.keyDown(screen.getByTestId("resize-url"), { key: "ArrowRight", shiftKey: true });
    await fireEvent.click(screen.getByTestId("column-menu-depth"));
    await fireEvent.click(screen.getByTestId("column-menu-hide"));
    const widthNow = width("url");
    first.unmount();
    expect(loadLayout("pages").hidden).toEqual(["depth"]);
    setup();
    await screen.findByText("https://site.test/p/0");
    await waitFor(() => expect(headers()).toEqual(["url", "title", "status"]));
    expect(width("url")).toBe(widthNow);
    await fireEvent.click(screen.getByTestId("columns-button"));
    await fireEvent.click(screen.getByTestId("columns-reset"));
    expect(headers()).toEqual(["url", "status", "title", "depth"]);
  });
});
