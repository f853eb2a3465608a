import { fireEvent, screen, waitFor } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import Tables from "../src/views/Tables.svelte";
import { FakeBackend, pagesTable } from "./fakeBackend";
import { renderWith } from "./render";

function backendWith(wasteRows: number): FakeBackend {
  const backend = new FakeBackend();
  backend.tables.set("pages", pagesTable(3));
  backend.tables.set("logWaste", {
    columns: [
      { key: "preferred_url", title: "Preferred URL", kind: "url" },
      { key: "cluster", title: "Cluster", kind: "number" },
      { key: "verified_bot_requests_to_duplicates", title: "Verified Bot Requests To Duplicates", kind: "number" },
    ],
    rows: Array.from({ length: wasteRows }, (_, i) => [`https://site.test/${i}`, i, 100 - i]),
    keys: Array.from({ length: wasteRows }, (_, i) => String(i)),
  });
  return backend;
}

describe("Crawl budget wasted on duplicates", () => {
  it("is a table of its own for an audit of an access log", async () => {
    const backend = backendWith(2);
    renderWith(Tables, { auditId: 1 }, backend);
    await fireEvent.click(await screen.findByTestId("table-tab-logWaste"));
    await waitFor(() => expect(screen.getAllByTestId("table-row")).toHaveLength(2));
    expect(screen.getByTestId("datatable").getAttribute("data-table")).toBe("logWaste");
  });

  it("is not offered for an audit without an access log", async () => {
    const backend = backendWith(0);
    renderWith(Tables, { auditId: 1 }, backend);
    await screen.findAllByTestId("table-row");
    await waitFor(() => expect(backend.callsOf("queryTable").some((c) => (c[1] as { table: string }).table === "logWaste")).toBe(true));
    expect(screen.queryByTestId("table-tab-logWaste")).toBeNull();
  });
});
