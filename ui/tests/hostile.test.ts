// Crawled text is hostile: it must reach the screen as literal text, never as markup.
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import App from "../src/App.svelte";
import type { Cell, Column } from "../src/lib/api";
import ClusterPage from "../src/views/ClusterPage.svelte";
import DataTable from "../src/components/DataTable.svelte";
import { FakeBackend, sampleCluster, sampleOverview } from "./fakeBackend";
import { renderWith } from "./render";

const HOSTILE = "<img src=x onerror=alert(1)>";
const HOSTILE_URL = `https://evil.test/${HOSTILE}`;

let alerts = 0;
beforeEach(() => {
  alerts = 0;
  window.alert = () => {
    alerts++;
  };
});
afterEach(() => expect(alerts).toBe(0));

function noMarkupInjected(): void {
  expect(document.querySelector("img")).toBeNull();
  expect(document.querySelector("[onerror]")).toBeNull();
  expect(document.querySelector("a[href]")).toBeNull();
}

describe("hostile crawled text", () => {
  it("is literal text in a table", async () => {
    const backend = new FakeBackend();
    const columns: Column[] = [
      { key: "url", title: "URL", kind: "url" },
      { key: "title", title: HOSTILE, kind: "text" },
    ];
    const rows: Cell[][] = [[HOSTILE_URL, HOSTILE]];
    backend.tables.set("pages", { columns, rows, keys: [HOSTILE] });
    renderWith(DataTable, { auditId: 3, table: "pages" }, backend);
    expect((await screen.findByText(HOSTILE_URL)).textContent).toBe(HOSTILE_URL);
    expect(screen.getAllByText(HOSTILE).length).toBeGreaterThanOrEqual(2);
    noMarkupInjected();
  });

  it("is literal text on the cluster page", async () => {
    const backend = new FakeBackend();
    const cluster = sampleCluster();
    cluster.preferredUrl = HOSTILE_URL;
    cluster.members[0].url = HOSTILE_URL;
    cluster.members[1].evidence = [`redirects (301) to ${HOSTILE_URL}`];
    cluster.members[1].fix = `301 redirect to ${HOSTILE_URL}`;
    cluster.findings[0].title = HOSTILE;
    cluster.findings[0].urls = [HOSTILE_URL];
    backend.clusters.set(4, cluster);
    renderWith(ClusterPage, { auditId: 1, clusterId: 4 }, backend);
    await screen.findAllByTestId("member-row");
    expect(screen.getByTestId("cluster-preferred").textContent).toBe(HOSTILE_URL);
    expect(screen.getByText(`redirects (301) to ${HOSTILE_URL}`)).toBeTruthy();
    expect(screen.getAllByTestId("member-fix")[1].textContent).toBe(`301 redirect to ${HOSTILE_URL}`);
    expect(screen.getByRole("heading", { name: HOSTILE })).toBeTruthy();
    noMarkupInjected();
  });

  it("is literal text in the audits list and the overview", async () => {
    const backend = new FakeBackend();
    backend.audits = [
      {
        id: 3,
        startUrl: HOSTILE_URL,
        startUrls: [HOSTILE_URL],
        resolve: [],
        extraCaCerts: 0,
        includes: [],
        excludes: [],
        followNofollow: true,
        configProblem: null,
        status: "done",
        startedAt: Date.UTC(2024, 0, 2, 3, 4),
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
    backend.overview = { ...sampleOverview(3), startUrl: HOSTILE_URL, policy: HOSTILE };
    backend.overview.clustersByCause = [{ label: HOSTILE, count: 1 }];
    render(App, { props: { backend } });
    await fireEvent.click(screen.getByTestId("nav-audits"));
    const row = await screen.findByTestId("audit-row");
    expect(row.textContent).toContain(HOSTILE_URL);
    await fireEvent.click(screen.getByTestId("audit-open"));
    await waitFor(() => expect(screen.getByTestId("overview-url").textContent).toBe(HOSTILE_URL));
    // The chart's accessible table carries the label as text.
    expect(screen.getByTestId("chart-causes").textContent).toContain(HOSTILE);
    noMarkupInjected();
  });
});
