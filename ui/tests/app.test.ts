import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import App from "../src/App.svelte";
import type {
  AuditListItem,
  AuditStatus,
  Family,
  FindingQuery,
  FindingView,
  Severity,
  TableQuery,
} from "../src/lib/api";
import { FakeBackend, pagesTable, sampleCluster, sampleOverview, sampleProgress } from "./fakeBackend";

function audit(id: number, status: AuditStatus = "done"): AuditListItem {
  return {
    id,
    startUrl: `https://site${id}.test/`,
    startUrls: [`https://site${id}.test/`],
    resolve: [],
    extraCaCerts: 0,
    includes: [],
    excludes: [],
    followNofollow: true,
    configProblem: null,
    status,
    startedAt: Date.UTC(2024, 4, id, 10, 0),
    finishedAt: null,
    pages: id * 10,
    urls: id * 12,
    findings: { error: id, warning: 2 * id, notice: 0 },
    clusters: id,
    stop: null,
    failure: null,
    resumable: ["cancelled", "failed", "interrupted"].includes(status),
    list: null,
  };
}

function finding(n: number, family: Family, severity: Severity): FindingView {
  return {
    key: `key-${n}`,
    id: n % 2 === 0 ? "DUP-HOST" : "REDIRECT-CHAIN",
    severity,
    family,
    tier: n % 7 === 0 ? "review" : "strong",
    title: `Finding ${n}`,
    summary: `summary ${n}`,
    why: `Why ${n} matters.`,
    urls: [`https://site.test/${n}`],
    evidence: [`seen ${n}`],
    fixes: [`fix ${n}`],
  };
}

function backendWithAudits(): FakeBackend {
  const backend = new FakeBackend();
  backend.audits = [audit(3), audit(2, "interrupted"), audit(1)];
  backend.overview = sampleOverview();
  backend.tables.set("pages", pagesTable(500));
  backend.tables.set("clusters", {
    columns: [
      { key: "cluster", title: "Cluster", kind: "number" },
      { key: "preferred_url", title: "Preferred URL", kind: "url" },
      { key: "members", title: "Members", kind: "number" },
      { key: "cause", title: "Cause", kind: "text" },
    ],
    rows: [
      [4, "https://www.site.test/shoes/", 3, "redirect"],
      [5, "https://www.site.test/hats/", 2, "URL normalization"],
    ],
    keys: ["4", "5"],
  });
  backend.clusters.set(4, sampleCluster());
  return backend;
}

describe("App", () => {
  it("opens an audit from the list and walks overview → clusters → a cluster's page", async () => {
    const backend = backendWithAudits();
    render(App, { props: { backend } });
    expect(screen.getByTestId("nav-clusters").hasAttribute("disabled")).toBe(true);
    await fireEvent.click(screen.getByTestId("nav-audits"));
    const rows = await screen.findAllByTestId("audit-row");
    expect(rows.map((row) => row.getAttribute("data-audit-id"))).toEqual(["3", "2", "1"]);
    expect(within(rows[1]).getByTestId("audit-resume")).toBeTruthy();
    expect(within(rows[0]).queryByTestId("audit-resume")).toBeNull();

    await fireEvent.click(within(rows[0]).getByTestId("audit-open"));
    expect(await screen.findByTestId("stat-pages")).toBeTruthy();
    expect(backend.callsOf("openAudit")).toEqual([[3]]);
    expect(screen.getByTestId("stat-pages").textContent).toContain("120");
    expect(screen.getByTestId("chart-status").textContent).toContain("404");

    await fireEvent.click(screen.getByTestId("nav-clusters"));
    const clusterRows = await screen.findAllByTestId("cluster-row");
    expect(clusterRows.map((row) => row.getAttribute("data-cluster-id"))).toEqual(["4", "5"]);

    // Filter by cause through the dropdown fed by the overview.
    await fireEvent.change(screen.getByTestId("clusters-cause"), { target: { value: "URL normalization" } });
    await waitFor(() => expect(screen.getAllByTestId("cluster-row")).toHaveLength(1));
    const last = backend.callsOf("queryTable").at(-1)?.[1] as TableQuery;
    expect(last.filters).toEqual([{ column: "cause", op: "equals", value: "URL normalization", upper: null }]);
    await fireEvent.change(screen.getByTestId("clusters-cause"), { target: { value: "" } });
    await waitFor(() => expect(screen.getAllByTestId("cluster-row")).toHaveLength(2));

    await fireEvent.click(screen.getAllByTestId("cluster-row")[0]);
    expect(await screen.findAllByTestId("member-row")).toHaveLength(3);
    expect(backend.callsOf("clusterDetail")).toEqual([[3, 4]]);
    // Every member but the preferred URL shows its evidence tier; the page explains them.
    expect(screen.getAllByTestId("member-tier").map((t) => t.textContent)).toEqual(["strong", "strong"]);
    expect(screen.getByTestId("cluster-tiers").textContent).toContain("never merged");
  });

  it("opens a cluster from the keyboard", async () => {
    const backend = backendWithAudits();
    render(App, { props: { backend } });
    await fireEvent.click(screen.getByTestId("nav-audits"));
    await fireEvent.click((await screen.findAllByTestId("audit-open"))[0]);
    await screen.findByTestId("stat-pages");
    await fireEvent.keyDown(window, { key: "5", altKey: true });
    await screen.findAllByTestId("cluster-row");
    const grid = screen.getByRole("grid");
    await fireEvent.keyDown(grid, { key: "ArrowDown" });
    await fireEvent.keyDown(grid, { key: "ArrowDown" });
    await fireEvent.keyDown(grid, { key: "Enter" });
    await waitFor(() => expect(backend.callsOf("clusterDetail")).toEqual([[3, 5]]));
  });

  it("never shows the web view's own context menu", async () => {
    const backend = backendWithAudits();
    render(App, { props: { backend } });
    await fireEvent.click(screen.getByTestId("nav-audits"));
    const row = (await screen.findAllByTestId("audit-row"))[0];
    for (const target of [row, screen.getByTestId("nav-new"), document.body]) {
      const event = new MouseEvent("contextmenu", { bubbles: true, cancelable: true });
      target.dispatchEvent(event);
      expect(event.defaultPrevented).toBe(true);
    }
  });

  it("deletes an audit only after confirmation", async () => {
    const backend = backendWithAudits();
    render(App, { props: { backend } });
    await fireEvent.click(screen.getByTestId("nav-audits"));
    const row = (await screen.findAllByTestId("audit-row"))[2];
    await fireEvent.click(within(row).getByTestId("audit-delete"));
    expect(backend.callsOf("deleteAudit")).toHaveLength(0);
    await fireEvent.click(within(row).getByTestId("audit-delete-cancel"));
    await fireEvent.click(within(row).getByTestId("audit-delete"));
    await fireEvent.click(within(row).getByTestId("audit-delete-confirm"));
    await waitFor(() => expect(screen.getAllByTestId("audit-row")).toHaveLength(2));
    expect(backend.callsOf("deleteAudit")).toEqual([[1]]);
  });

  it("re-runs an audit and shows its progress", async () => {
    const backend = backendWithAudits();
    backend.nextAuditId = 4;
    render(App, { props: { backend } });
    await fireEvent.click(screen.getByTestId("nav-audits"));
    await fireEvent.click((await screen.findAllByTestId("audit-rerun"))[0]);
    expect((await screen.findByTestId("progress-panel")).getAttribute("data-audit-id")).toBe("4");
    expect(backend.callsOf("rerunAudit")).toEqual([[3]]);
    backend.emitProgress(sampleProgress(4, { fetched: 7, queued: 1, pagesPerSecond: 2, elapsedMs: 1000 }));
    await waitFor(() => expect(screen.getByTestId("progress-fetched").textContent).toBe("7"));
    expect(screen.getByTestId("nav-running").textContent).toContain("#4");
  });

  it("resumes an interrupted audit from the list", async () => {
    const backend = backendWithAudits();
    render(App, { props: { backend } });
    await fireEvent.click(screen.getByTestId("nav-audits"));
    await fireEvent.click(await screen.findByTestId("audit-resume"));
    expect((await screen.findByTestId("progress-panel")).getAttribute("data-audit-id")).toBe("2");
    expect(backend.callsOf("resumeAudit")).toEqual([[2]]);
  });

  it("marks an audit stopped at a limit, a failed one with its reason, and a list audit with its skipped lines", async () => {
    const backend = backendWithAudits();
    backend.audits[0] = { ...backend.audits[0], stop: "max_urls (after 20 URLs; 7 more were found and not crawled)" };
    backend.audits[1] = {
      ...backend.audits[1],
      status: "failed",
      failure: "no page answered 2xx",
      // Its stored configuration cannot run: no Resume.
      resumable: false,
    };
    backend.audits[2] = {
      ...backend.audits[2],
      list: [
        {
          name: "urls.txt",
          format: "plain",
          lines: 12,
          urls: 9,
          rejected: 3,
          repeated: 0,
          overLimit: 0,
          rejectedLines: ['line 4: not a URL: "hello"', 'line 7: not a URL: "ftp://x"'],
        },
      ],
    };
    render(App, { props: { backend } });
    await fireEvent.click(screen.getByTestId("nav-audits"));
    const rows = await screen.findAllByTestId("audit-row");
    expect(within(rows[0]).getByTestId("audit-row-stopped").textContent).toBe(
      "[stopped: max_urls (after 20 URLs; 7 more were found and not crawled)]",
    );
    expect(within(rows[1]).getByTestId("audit-row-failure").textContent).toBe("[failed: no page answered 2xx]");
    expect(within(rows[1]).queryByTestId("audit-resume")).toBeNull();
    const list = within(rows[2]).getByTestId("audit-row-list");
    expect(list.querySelector("summary")?.textContent?.replace(/\s+/g, " ").trim()).toBe("[list of 9 URLs] [3 lines skipped]");
    expect(within(list).getByTestId("audit-row-list-input").textContent).toContain("urls.txt: 9 URLs from 12 lines, 3 lines not URLs, skipped");
    const skipped = within(list).getByTestId("audit-row-skipped");
    expect(skipped.textContent).toContain('line 4: not a URL: "hello"');
    expect(skipped.textContent).toContain("… and 1 more lines not URLs");
    for (const row of rows) expect(within(row).queryByTestId("audit-row-list") === null).toBe(row !== rows[2]);
  });

  it("shows where a re-run of each audit sends its requests", async () => {
    const backend = backendWithAudits();
    backend.audits[0] = {
      ...backend.audits[0],
      resolve: ["site1.test:443:10.0.0.5"],
      extraCaCerts: 1,
      includes: [],
      excludes: [],
      followNofollow: true,
      configProblem: "its stored start URLs differ from the audit's",
    };
    render(App, { props: { backend } });
    await fireEvent.click(screen.getByTestId("nav-audits"));
    await screen.findAllByTestId("audit-row");
    expect(screen.getByTestId("audit-row-resolve").textContent).toContain("site1.test:443:10.0.0.5");
    expect(screen.getByTestId("audit-row-extra-ca").textContent).toContain("1 extra CA");
    expect(screen.getByTestId("audit-row-config-problem").textContent).toContain("differ");
  });

  it("lists the keyboard shortcuts from the sidebar and on F1", async () => {
    render(App, { props: { backend: backendWithAudits() } });
    expect(screen.queryByTestId("shortcuts-panel")).toBeNull();
    await fireEvent.click(screen.getByTestId("nav-shortcuts"));
    const panel = screen.getByTestId("shortcuts-panel");
    const keys = within(panel)
      .getAllByTestId("shortcut")
      .map((k) => k.textContent);
    for (const key of ["Alt+1 … Alt+8", "Ctrl+C", "Ctrl+A", "Shift+F10, menu key, right-click"]) {
      expect(keys).toContain(key);
    }
    await fireEvent.keyDown(panel, { key: "Escape" });
    expect(screen.queryByTestId("shortcuts-panel")).toBeNull();
    await fireEvent.keyDown(window, { key: "F1" });
    expect(screen.getByTestId("shortcuts-panel")).toBeTruthy();
    await fireEvent.click(screen.getByTestId("shortcuts-close"));
    expect(screen.queryByTestId("shortcuts-panel")).toBeNull();
  });

  it("says which URLs an audit's crawl left out and whether it followed nofollow links", async () => {
    const backend = backendWithAudits();
    backend.audits[0] = {
      ...backend.audits[0],
      includes: ["^https://site1\\.test/shop/"],
      excludes: ["\\?replytocom="],
      followNofollow: false,
    };
    render(App, { props: { backend } });
    await fireEvent.click(screen.getByTestId("nav-audits"));
    const rows = await screen.findAllByTestId("audit-row");
    const rules = within(rows[0])
      .getAllByTestId("audit-row-crawl-rule")
      .map((r) => r.textContent);
    expect(rules).toEqual([
      "[only URLs matching ^https://site1\\.test/shop/]",
      "[excluding URLs matching \\?replytocom=]",
      "[nofollow links not followed]",
    ]);
    expect(within(rows[1]).queryByTestId("audit-row-crawl-rule")).toBeNull();
  });

  it("says on the overview where a crawl stopped at a limit", async () => {
    const backend = backendWithAudits();
    render(App, { props: { backend } });
    await fireEvent.click(screen.getByTestId("nav-audits"));
    await fireEvent.click((await screen.findAllByTestId("audit-open"))[0]);
    await screen.findByTestId("stat-pages");
    expect(screen.queryByTestId("overview-stop")).toBeNull();

    const stopped = backendWithAudits();
    stopped.overview = { ...stopped.overview!, stop: "max_urls (after 20 URLs; 7 more were found)" };
    render(App, { props: { backend: stopped } });
    await fireEvent.click(screen.getAllByTestId("nav-audits").at(-1)!);
    await fireEvent.click((await screen.findAllByTestId("audit-open")).at(-1)!);
    expect((await screen.findByTestId("overview-stop")).textContent).toContain("max_urls (after 20 URLs");
  });

  it("says why a failed audit failed instead of 'nothing to fix'", async () => {
    const failed = backendWithAudits();
    failed.overview = { ...failed.overview!, status: "failed", pages: 0, failure: "no page answered 2xx: example.test: the name does not resolve" };
    failed.issues = [];
    render(App, { props: { backend: failed } });
    await fireEvent.click(screen.getAllByTestId("nav-audits").at(-1)!);
    await fireEvent.click((await screen.findAllByTestId("audit-open")).at(-1)!);
    expect((await screen.findByTestId("overview-failure")).textContent).toContain(
      "The audit failed: no page answered 2xx: example.test: the name does not resolve.",
    );
    expect((await screen.findByTestId("fix-first-failed")).textContent).not.toContain("nothing to fix");
  });

  it("compares the two picked audits, older first", async () => {
    const backend = backendWithAudits();
    backend.diff = {
      oldAudit: 1,
      newAudit: 3,
      summary: [
        { label: "findings new", count: 4 },
        { label: "findings resolved", count: 2 },
      ],
      sections: [
        {
          key: "findingsNew",
          title: "New findings",
          columns: [
            { key: "id", title: "Finding", kind: "text" },
            { key: "url", title: "URL", kind: "url" },
          ],
          rows: [["DUP-HOST", "https://site.test/a"]],
          total: 1,
        },
      ],
      warnings: ["the newer audit (audit 3) stopped at max_urls (after 20 URLs)"],
    };
    render(App, { props: { backend } });
    await fireEvent.click(screen.getByTestId("nav-audits"));
    const boxes = await screen.findAllByTestId("audit-select");
    expect(screen.getByTestId("audits-compare").hasAttribute("disabled")).toBe(true);
    await fireEvent.click(boxes[0]);
    await fireEvent.click(boxes[2]);
    await fireEvent.click(screen.getByTestId("audits-compare"));
    const summary = await screen.findByTestId("compare-summary");
    expect(backend.callsOf("compareAudits")).toEqual([[1, 3]]);
    expect(summary.textContent).toContain("findings new");
    const section = screen.getByTestId("compare-section");
    expect(section.textContent).toContain("New findings");
    expect(section.textContent).toContain("https://site.test/a");
    // A crawl cut short is said before any change is read.
    expect(screen.getByTestId("compare-warnings").textContent).toContain("stopped at max_urls");
  });

  it("lists findings by family and severity, a page at a time", async () => {
    const backend = backendWithAudits();
    backend.findings = [
      ...Array.from({ length: 60 }, (_, n) => finding(n, "duplicates", n % 2 ? "warning" : "error")),
      finding(60, "redirects", "notice"),
    ];
    render(App, { props: { backend } });
    await fireEvent.click(screen.getByTestId("nav-audits"));
    await fireEvent.click((await screen.findAllByTestId("audit-open"))[0]);
    await screen.findByTestId("stat-pages");
    await fireEvent.click(screen.getByTestId("nav-findings"));
    await waitFor(() => expect(screen.getAllByTestId("finding")).toHaveLength(50));
    expect(screen.getByTestId("findings-count").textContent).toContain("1–50 of 61");
    const first = screen.getAllByTestId("finding")[0];
    expect(within(first).getByText("Why 0 matters.")).toBeTruthy();
    expect(within(first).getByText("fix 0")).toBeTruthy();
    // Weak-evidence findings (every 7th here) are marked for review; the others are not.
    const tiers = screen.getAllByTestId("finding").map((f) => within(f).queryByTestId("finding-tier")?.textContent ?? "");
    expect(tiers.filter((t) => t === "for review")).toHaveLength(8);

    await fireEvent.click(screen.getByTestId("findings-next"));
    await waitFor(() => expect(screen.getAllByTestId("finding")).toHaveLength(11));
    expect(screen.getByRole("heading", { name: "redirects" })).toBeTruthy();

    await fireEvent.click(screen.getByTestId("family-redirects"));
    await waitFor(() => expect(screen.getAllByTestId("finding")).toHaveLength(1));
    await fireEvent.click(screen.getByTestId("family-duplicates"));
    await fireEvent.change(screen.getByTestId("findings-severity"), { target: { value: "warning" } });
    await waitFor(() => expect(screen.getByTestId("findings-count").textContent).toContain("1–30 of 30 matched"));
    const query = backend.callsOf("queryFindings").at(-1)?.[1] as FindingQuery;
    expect(query).toEqual({ severity: "warning", family: "duplicates", search: null, offset: 0, limit: 50 });
  });

  it("shows each report table and exports the full report", async () => {
    const backend = backendWithAudits();
    render(App, { props: { backend } });
    await fireEvent.click(screen.getByTestId("nav-audits"));
    await fireEvent.click((await screen.findAllByTestId("audit-open"))[0]);
    await screen.findByTestId("stat-pages");

    await fireEvent.click(screen.getByTestId("export-report"));
    const written = await screen.findByTestId("export-report-result");
    expect(written.textContent).toContain("/tmp/report/pages.csv");
    expect(backend.callsOf("exportReport")).toEqual([[3, "/tmp/report"]]);

    await fireEvent.click(screen.getByTestId("nav-tables"));
    await screen.findByText("https://site.test/p/0");
    await fireEvent.click(screen.getByTestId("table-tab-redirects"));
    expect((await screen.findByTestId("error-message")).textContent).toBe("unknown table redirects");
    // The Tables view also asks whether the audit has an access log's crawl budget table.
    const tables = backend
      .callsOf("queryTable")
      .map((args) => (args[1] as TableQuery).table)
      .filter((table) => table !== "logWaste");
    expect(tables).toEqual(["pages", "redirects"]);
  });

  it("shows why an audit could not be opened", async () => {
    const backend = backendWithAudits();
    backend.overview = null;
    render(App, { props: { backend } });
    await fireEvent.click(screen.getByTestId("nav-audits"));
    await fireEvent.click((await screen.findAllByTestId("audit-open"))[0]);
    expect((await screen.findByTestId("error-message")).textContent).toBe("Could not open audit #3: audit 3 not found");
  });

  it("picks up the progress of audits already running when the window opens", async () => {
    const backend = backendWithAudits();
    backend.audits = [audit(9, "running")];
    backend.progress.set(9, sampleProgress(9, { fetched: 321, queued: 5, pagesPerSecond: 10, elapsedMs: 30_000 }));
    render(App, { props: { backend } });
    const running = await screen.findByTestId("nav-running");
    expect(running.textContent).toContain("321");
    await fireEvent.click(running);
    expect((await screen.findByTestId("progress-fetched")).textContent).toBe("321");
  });
});
