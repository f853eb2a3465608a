import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import App from "../src/App.svelte";
import type { TableQuery, ViewQuery } from "../src/lib/api";
import { barLabels } from "../src/lib/chartLabels";
import Issues from "../src/views/Issues.svelte";
import Overview from "../src/views/Overview.svelte";
import { FakeBackend, sampleDetail, sampleIssues, sampleOverview } from "./fakeBackend";
import { renderWith } from "./render";

function backendWithIssues(): FakeBackend {
  const backend = new FakeBackend();
  backend.overview = sampleOverview();
  const { issues, table } = sampleIssues();
  backend.issues = issues;
  backend.tables.set("issueUrls", table);
  return backend;
}

describe("Issues", () => {
  it("lists the issues by priority and shows the first one's explanation and URLs", async () => {
    const backend = backendWithIssues();
    renderWith(Issues, { auditId: 1 }, backend);
    const rows = await screen.findAllByTestId("issue-row");
    expect(rows.map((r) => r.getAttribute("data-code"))).toEqual(["CANON-TO-ERROR", "DUP-SLASH", "DUP-PARAM"]);
    expect(screen.getAllByTestId("issue-priority").map((c) => c.textContent)).toEqual(["6.00", "3.17", "1.00"]);
    expect(rows[0].getAttribute("aria-selected")).toBe("true");
    expect(screen.getByTestId("issue-why").textContent).toContain("Why CANON-TO-ERROR matters.");
    expect(screen.getByTestId("issue-fix").textContent).toContain("301 redirects: 2.");
    expect(screen.getByTestId("issue-fix").textContent).toContain("Fix one CANON-TO-ERROR.");
    // The URL table asks for this issue's rows only.
    await waitFor(() => expect(screen.getAllByTestId("issue-url-row")).toHaveLength(3));
    const query = backend.callsOf("queryTable").at(-1)?.[1] as TableQuery;
    expect(query.table).toBe("issueUrls");
    expect(query.filters).toEqual([{ column: "issue", op: "equals", value: "CANON-TO-ERROR", upper: null }]);
  });

  it("counts an issue's URL rows as the issue's, and a search of them against those", async () => {
    const backend = backendWithIssues();
    renderWith(Issues, { auditId: 1 }, backend);
    const rows = await screen.findAllByTestId("issue-row");
    await fireEvent.click(rows[2]);
    await waitFor(() => expect(screen.getAllByTestId("issue-url-row")).toHaveLength(1));
    // One count: the issue's rows, not "1 matched of" every issue's.
    const count = () => screen.getByTestId("table-matched").textContent?.trim();
    await waitFor(() => expect(count()).toBe("1 row"));
    await fireEvent.click(rows[0]);
    await waitFor(() => expect(count()).toBe("3 rows"));
    await fireEvent.input(screen.getByTestId("table-search"), { target: { value: "zzz-no-such-url" } });
    await fireEvent.keyDown(screen.getByTestId("table-search"), { key: "Enter" });
    await waitFor(() => expect(count()).toBe("0 of 3 rows match"));
  });

  it("selects another issue by click and by arrow keys", async () => {
    const backend = backendWithIssues();
    const { app } = renderWith(Issues, { auditId: 1 }, backend);
    const rows = await screen.findAllByTestId("issue-row");
    await fireEvent.click(rows[1]);
    expect(app.issueCode).toBe("DUP-SLASH");
    await waitFor(() => expect(screen.getAllByTestId("issue-url-row")).toHaveLength(2));
    expect(screen.getByTestId("issue-detail").getAttribute("data-code")).toBe("DUP-SLASH");
    const list = screen.getByTestId("issues-table");
    await fireEvent.keyDown(list, { key: "ArrowDown" });
    expect(app.issueCode).toBe("DUP-PARAM");
    await waitFor(() => expect(screen.getAllByTestId("issue-url-row")).toHaveLength(1));
    await fireEvent.keyDown(list, { key: "ArrowDown" });
    expect(app.issueCode).toBe("DUP-PARAM");
    await fireEvent.keyDown(list, { key: "ArrowUp" });
    await fireEvent.keyDown(list, { key: "ArrowUp" });
    await fireEvent.keyDown(list, { key: "ArrowUp" });
    expect(app.issueCode).toBe("CANON-TO-ERROR");
  });

  it("opens a URL of an issue in the detail pane in one click, its inlinks one more", async () => {
    const backend = backendWithIssues();
    const url = "https://site.test/dup-slash/1";
    backend.details.set(url, sampleDetail(url));
    renderWith(Issues, { auditId: 1 }, backend);
    await fireEvent.click((await screen.findAllByTestId("issue-row"))[1]);
    expect(await screen.findByTestId("url-detail-hint")).toBeTruthy();
    await waitFor(() => expect(screen.getAllByTestId("issue-url-row")).toHaveLength(2));
    await fireEvent.click(screen.getAllByTestId("issue-url-row")[1]);
    await waitFor(() => expect(screen.getByTestId("url-detail").getAttribute("data-url")).toBe(url));
    await fireEvent.click(await screen.findByTestId("url-detail-tab-inlinks"));
    expect(await screen.findAllByTestId("url-detail-link")).toHaveLength(2);
    expect(backend.callsOf("urlLinks")).toEqual([[1, url, "inlinks", 0, 100]]);
  });

  it("exports one issue's URLs as the view and every issue's as the whole table", async () => {
    const backend = backendWithIssues();
    renderWith(Issues, { auditId: 1 }, backend);
    await fireEvent.click((await screen.findAllByTestId("issue-row"))[1]);
    await waitFor(() => expect(screen.getAllByTestId("issue-url-row")).toHaveLength(2));
    const table = screen.getByTestId("datatable");
    await fireEvent.click(within(table).getByTestId("export-csv"));
    await waitFor(() => expect(backend.callsOf("exportView")).toHaveLength(1));
    const view = backend.callsOf("exportView")[0][1] as ViewQuery;
    expect(view.filters).toEqual([{ column: "issue", op: "equals", value: "DUP-SLASH", upper: null }]);
    expect(backend.written.get("/tmp/out.csv")).toHaveLength(3);

    await fireEvent.click(within(screen.getByTestId("issues-export-all")).getByTestId("export-csv"));
    await waitFor(() => expect(backend.callsOf("exportTable")).toEqual([[1, "issueUrls", "/tmp/out.csv"]]));
    expect(await screen.findByText("Wrote 6 rows to /tmp/out.csv")).toBeTruthy();
  });

  it("says so when there is nothing to fix, and shows a failure as text", async () => {
    const empty = backendWithIssues();
    empty.issues = [];
    renderWith(Issues, { auditId: 1 }, empty);
    expect(await screen.findByTestId("issues-empty")).toBeTruthy();

    const failing = new FakeBackend();
    renderWith(Issues, { auditId: 9 }, failing);
    expect((await screen.findByTestId("error-message")).textContent).toContain("audit 9 not found");
  });
});

describe("Overview: Fix these first", () => {
  it("lists the top issues by priority, each one click from its URLs", async () => {
    const backend = backendWithIssues();
    const extra = sampleIssues().issues.map((issue, n) => ({ ...issue, code: "TRAP" as const, priority: 0.5 - n }));
    backend.issues = [...backend.issues, ...extra.slice(0, 1), { ...extra[0], code: "LINK-BROKEN" }, { ...extra[0], code: "SITEMAP-ERROR" }];
    const { app } = renderWith(Overview, { overview: sampleOverview() }, backend);
    const items = await screen.findAllByTestId("fix-first-item");
    expect(items.map((i) => i.getAttribute("data-code"))).toEqual([
      "CANON-TO-ERROR",
      "DUP-SLASH",
      "DUP-PARAM",
      "TRAP",
      "LINK-BROKEN",
    ]);
    expect(items[0].textContent).toContain("3 URLs");
    expect(items[2].textContent).toContain("1 URL");
    await fireEvent.click(items[1]);
    expect(app.view).toBe("issues");
    expect(app.issueCode).toBe("DUP-SLASH");
  });

  it("opens the Issues view from the navigation with the chosen issue selected", async () => {
    const backend = backendWithIssues();
    backend.audits = [
      {
        id: 1,
        startUrl: "https://site.test/",
        startUrls: ["https://site.test/"],
        resolve: [],
        extraCaCerts: 0,
        includes: [],
        excludes: [],
        followNofollow: true,
        configProblem: null,
        status: "done",
        startedAt: 0,
        finishedAt: null,
        pages: 1,
        urls: 1,
        findings: null,
        clusters: null,
        stop: null,
        failure: null,
        resumable: false,
        list: null,
      },
    ];
    render(App, { props: { backend } });
    await fireEvent.click(screen.getByTestId("nav-audits"));
    await fireEvent.click(await screen.findByTestId("audit-open"));
    await fireEvent.click((await screen.findAllByTestId("fix-first-item"))[2]);
    const rows = await screen.findAllByTestId("issue-row");
    expect(rows[2].getAttribute("aria-selected")).toBe("true");
    await fireEvent.click(screen.getByTestId("nav-overview"));
    await fireEvent.keyDown(window, { key: "4", altKey: true });
    expect((await screen.findAllByTestId("issue-row"))[2].getAttribute("aria-selected")).toBe("true");
  });
});

describe("bar value labels", () => {
  it("puts each value past its bar's end, thousands separated", () => {
    const bars = [
      { x: 10, y: 100 },
      { x: 40, y: 20 },
    ];
    expect(barLabels(bars, [3, 12345], false)).toEqual([
      { text: "3", x: 10, y: 96 },
      { text: "12,345", x: 40, y: 16 },
    ]);
    expect(barLabels(bars, [3, 12345], true)).toEqual([
      { text: "3", x: 14, y: 100 },
      { text: "12,345", x: 44, y: 20 },
    ]);
  });
});
