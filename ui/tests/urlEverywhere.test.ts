// Every URL one click from its detail: a finding's URLs, a cluster's preferred URL in the
// Clusters list, the URLs of any other table and the changed URLs of a comparison each open the
// one URL detail pane; a second click on the URL shown closes it.
import { fireEvent, screen, waitFor, within } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import type { FindingView } from "../src/lib/api";
import { chooseUrl } from "../src/lib/selection";
import Clusters from "../src/views/Clusters.svelte";
import Compare from "../src/views/Compare.svelte";
import Findings from "../src/views/Findings.svelte";
import Tables from "../src/views/Tables.svelte";
import { FakeBackend, sampleDetail, sampleOverview } from "./fakeBackend";
import { renderWith } from "./render";

function finding(urls: string[]): FindingView {
  return {
    key: "k-1",
    id: "CANON-TO-ERROR",
    severity: "error",
    family: "canonicals",
    tier: "strong",
    title: "Canonical to an error",
    summary: "a canonical points at a 404",
    why: "Visitors and crawlers reach a dead end.",
    urls,
    evidence: [],
    fixes: [],
  };
}

describe("chooseUrl", () => {
  it("follows the last URL clicked and closes on a second click", () => {
    expect(chooseUrl(null, "a")).toBe("a");
    expect(chooseUrl("a", "b")).toBe("b");
    expect(chooseUrl("b", "b")).toBeNull();
  });
});

describe("a URL opens its detail", () => {
  it("from a finding's URL list", async () => {
    const backend = new FakeBackend();
    backend.overview = sampleOverview(2);
    backend.findings = [finding(["https://site.test/gone", "https://site.test/other"])];
    backend.details.set("https://site.test/gone", sampleDetail("https://site.test/gone"));
    renderWith(Findings, { overview: sampleOverview(2) }, backend);
    const urls = await screen.findAllByTestId("finding-url");
    expect(screen.queryByTestId("url-detail")).toBeNull();
    await fireEvent.click(urls[0]);
    const pane = await screen.findByTestId("url-detail");
    expect(pane.getAttribute("data-url")).toBe("https://site.test/gone");
    expect(urls[0].getAttribute("aria-pressed")).toBe("true");
    await waitFor(() => expect(backend.callsOf("urlDetail")).toEqual([[2, "https://site.test/gone"]]));
    // Its inlinks are one more click away.
    await fireEvent.click(await screen.findByTestId("url-detail-tab-inlinks"));
    expect(await screen.findAllByTestId("url-detail-link")).toHaveLength(2);
    // A second click closes it.
    await fireEvent.click(urls[0]);
    expect(screen.queryByTestId("url-detail")).toBeNull();
  });

  it("from a cluster's preferred URL in the Clusters list, while a row still opens its cluster", async () => {
    const backend = new FakeBackend();
    const overview = sampleOverview(3);
    backend.overview = overview;
    backend.tables.set("clusters", {
      columns: [
        { key: "cluster", title: "Cluster", kind: "number" },
        { key: "preferred_url", title: "Preferred URL", kind: "url" },
        { key: "cause", title: "Cause", kind: "text" },
      ],
      rows: [[4, "https://www.site.test/shoes/", "redirect"]],
      keys: ["4"],
    });
    backend.details.set("https://www.site.test/shoes/", sampleDetail("https://www.site.test/shoes/"));
    const { app } = renderWith(Clusters, { overview }, backend);
    const row = await screen.findByTestId("cluster-row");
    await fireEvent.click(within(row).getByTestId("cell-url"));
    const pane = await screen.findByTestId("url-detail");
    expect(pane.getAttribute("data-url")).toBe("https://www.site.test/shoes/");
    expect(app.view).not.toBe("cluster");
    await fireEvent.click(within(row).getAllByRole("gridcell")[0]);
    expect(app.view).toBe("cluster");
  });

  it("from a URL in any other table", async () => {
    const backend = new FakeBackend();
    backend.overview = sampleOverview(2);
    backend.tables.set("clusterMembers", {
      columns: [
        { key: "cluster", title: "Cluster", kind: "number" },
        { key: "address", title: "Address", kind: "url" },
      ],
      rows: [[4, "https://site.test/gone"]],
      keys: ["a"],
    });
    backend.details.set("https://site.test/gone", sampleDetail("https://site.test/gone"));
    const { app } = renderWith(Tables, { auditId: 2 }, backend);
    app.showTable("clusterMembers");
    await fireEvent.click(await screen.findByTestId("cell-url"));
    expect((await screen.findByTestId("url-detail")).getAttribute("data-url")).toBe("https://site.test/gone");
  });

  it("from a changed URL of a comparison, in the new audit or the old", async () => {
    const backend = new FakeBackend();
    backend.diff = {
      oldAudit: 1,
      newAudit: 3,
      summary: [],
      sections: [
        {
          key: "responses",
          title: "Status codes and redirects that changed",
          columns: [
            { key: "url", title: "URL", kind: "url" },
            { key: "old", title: "Old", kind: "number" },
            { key: "new", title: "New", kind: "number" },
          ],
          rows: [["https://site.test/gone", 200, 404]],
          total: 1,
        },
      ],
      warnings: [],
    };
    backend.details.set("https://site.test/gone", sampleDetail("https://site.test/gone"));
    const { app } = renderWith(Compare, {}, backend);
    app.compareOld = 1;
    app.compareNew = 3;
    await fireEvent.click(await screen.findByTestId("compare-run"));
    await fireEvent.click(await screen.findByTestId("compare-url"));
    expect((await screen.findByTestId("url-detail")).getAttribute("data-url")).toBe("https://site.test/gone");
    await waitFor(() => expect(backend.callsOf("urlDetail")).toEqual([[3, "https://site.test/gone"]]));
    await fireEvent.click(screen.getByTestId("compare-detail-old"));
    await waitFor(() => expect(backend.callsOf("urlDetail").at(-1)).toEqual([1, "https://site.test/gone"]));
  });
});
