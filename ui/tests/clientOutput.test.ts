import { fireEvent, screen, waitFor } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import ExportReportButton from "../src/components/ExportReportButton.svelte";
import { FakeBackend, pagesTable } from "./fakeBackend";
import { renderWith } from "./render";

describe("client-ready output", () => {
  it("writes the Excel workbook and the HTML report to paths chosen in their own dialogs", async () => {
    const backend = new FakeBackend();
    backend.tables.set("pages", pagesTable(3));
    renderWith(ExportReportButton, { auditId: 7 }, backend);
    await fireEvent.click(screen.getByTestId("export-workbook"));
    await waitFor(() => expect(backend.callsOf("exportWorkbook")).toEqual([[7, "/tmp/out.csv"]]));
    expect((await screen.findByTestId("export-client-result")).textContent).toBe(
      "Wrote a workbook of 1 sheets to /tmp/out.csv",
    );
    await fireEvent.click(screen.getByTestId("export-html"));
    await waitFor(() => expect(backend.callsOf("exportHtml")).toEqual([[7, "/tmp/out.csv"]]));
    expect(backend.callsOf("pickSavePath")).toEqual([
      ["audit-7.xlsx", "saveWorkbook"],
      ["audit-7.html", "saveHtml"],
    ]);
    expect((await screen.findByTestId("export-client-result")).textContent).toBe(
      "Wrote the HTML report to /tmp/out.csv",
    );
  });

  it("writes nothing when the dialog is cancelled", async () => {
    const backend = new FakeBackend();
    backend.savePath = null;
    renderWith(ExportReportButton, { auditId: 7 }, backend);
    await fireEvent.click(screen.getByTestId("export-html"));
    await waitFor(() => expect(backend.callsOf("pickSavePath")).toHaveLength(1));
    expect(backend.callsOf("exportHtml")).toEqual([]);
  });
});
