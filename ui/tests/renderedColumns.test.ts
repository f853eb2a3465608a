// A rendered audit: the Pages and Canonicals tables carry each rendered value beside the raw one,
// and the URL detail pane shows what the page says after its scripts ran in a section of its own,
// with the rendered canonical and whether a script changed it.
import { screen } from "@testing-library/svelte";
import { beforeEach, describe, expect, it } from "vitest";
import type { Cell, Column } from "../src/lib/api";
import DataTable from "../src/components/DataTable.svelte";
import UrlDetailPane from "../src/components/UrlDetailPane.svelte";
import { FakeBackend, sampleDetail } from "./fakeBackend";
import { renderWith } from "./render";

/** The Pages columns around the rendered ones, as `crates/view` lays them out. */
const PAGES: Column[] = [
  { key: "address", title: "Address", kind: "url" },
  { key: "title_1", title: "Title 1", kind: "text" },
  { key: "rendered_title", title: "Rendered Title", kind: "text" },
  { key: "canonical_link_element_1", title: "Canonical Link Element 1", kind: "url" },
  { key: "rendered_canonical", title: "Rendered Canonical", kind: "url" },
  { key: "word_count", title: "Word Count", kind: "number" },
  { key: "rendered_word_count", title: "Rendered Word Count", kind: "number" },
  { key: "render_outcome", title: "Render Outcome", kind: "text" },
];

describe("rendered columns", () => {
  beforeEach(() => localStorage.clear());

  it("shows each rendered value beside the raw one in the Pages table", async () => {
    const backend = new FakeBackend();
    const rows: Cell[][] = [
      ["https://app.test/a", "App", "Page A", "https://app.test/a", "https://app.test/", 3, 250, "rendered"],
      ["https://app.test/b", "App", null, "", "", 3, null, "timeout"],
    ];
    backend.tables.set("pages", { columns: PAGES, rows, keys: ["a", "b"] });
    renderWith(DataTable, { auditId: 1, table: "pages", debounceMs: 0 }, backend);
    await screen.findByText("Page A");
    const headers = screen.getAllByRole("columnheader").map((h) => h.getAttribute("data-column") ?? "");
    expect(headers).toEqual(PAGES.map((c) => c.key));
    expect(screen.getByText("https://app.test/")).toBeTruthy();
    expect(screen.getByText("timeout")).toBeTruthy();
  });

  it("shows the rendered page and a canonical changed by script in the URL detail pane", async () => {
    const backend = new FakeBackend();
    const detail = sampleDetail("https://app.test/a", "duplicate");
    detail.fields.push(
      { key: "canonical_link_element_1", label: "Canonical Link Element 1", value: "https://app.test/a" },
      { key: "rendered_title", label: "Rendered Title", value: "Page <b>A</b>" },
      { key: "rendered_canonical", label: "Rendered Canonical", value: "https://app.test/" },
      { key: "rendered_word_count", label: "Rendered Word Count", value: "250" },
      { key: "render_outcome", label: "Render Outcome", value: "rendered" },
    );
    backend.details.set(detail.url, detail);
    renderWith(UrlDetailPane, { auditId: 2, url: detail.url }, backend);
    const section = await screen.findByTestId("url-detail-rendered");
    const fields = screen.getAllByTestId("url-detail-rendered-field");
    expect(fields.map((f) => f.getAttribute("data-key"))).toEqual([
      "render_outcome",
      "rendered_canonical",
      "rendered_title",
      "rendered_word_count",
    ]);
    expect(fields[1].textContent).toBe("https://app.test/");
    // Crawled text stays text.
    expect(section.querySelector("b")).toBeNull();
    // The rendered values are not repeated among the raw fields.
    const raw = screen.getAllByTestId("url-detail-field").map((f) => f.getAttribute("data-key"));
    expect(raw).not.toContain("rendered_canonical");
    expect(raw).toContain("canonical_link_element_1");
    expect(screen.getByTestId("url-detail-rendered-canonical").textContent?.replace(/\s+/g, " ")).toContain(
      "A script changes the canonical from https://app.test/a to https://app.test/",
    );
  });

  it("shows no rendered section for an audit that did not render", async () => {
    const backend = new FakeBackend();
    backend.details.set("https://site.test/d", sampleDetail("https://site.test/d", "duplicate"));
    renderWith(UrlDetailPane, { auditId: 2, url: "https://site.test/d" }, backend);
    await screen.findAllByTestId("url-detail-field");
    expect(screen.queryByTestId("url-detail-rendered")).toBeNull();
  });
});
