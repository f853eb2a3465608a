import { fireEvent, screen, waitFor, within } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import UrlDetailPane from "../src/components/UrlDetailPane.svelte";
import ClusterPage from "../src/views/ClusterPage.svelte";
import Tables from "../src/views/Tables.svelte";
import { FakeBackend, pagesTable, sampleCluster, sampleDetail } from "./fakeBackend";
import { renderWith } from "./render";

describe("UrlDetailPane", () => {
  it("shows the overview fields, then a 404's inlinks with anchor, position and follow", async () => {
    const backend = new FakeBackend();
    backend.details.set("https://site.test/gone", sampleDetail("https://site.test/gone"));
    renderWith(UrlDetailPane, { auditId: 2, url: "https://site.test/gone" }, backend);
    const fields = await screen.findAllByTestId("url-detail-field");
    // Status and indexability first; the address is the pane's title, not a field.
    expect(fields.map((f) => f.getAttribute("data-key"))).toEqual([
      "status_code",
      "indexability",
      "main_content_word_count",
      "title_1",
    ]);
    expect(fields[0].textContent).toBe("404");
    expect(screen.getByTestId("url-detail-robots").textContent).toContain("meta robots: noindex");
    expect(backend.callsOf("urlDetail")).toEqual([[2, "https://site.test/gone"]]);

    await fireEvent.click(screen.getByTestId("url-detail-tab-inlinks"));
    const links = screen.getAllByTestId("url-detail-link");
    expect(links).toHaveLength(2);
    const cells = within(links[0]).getAllByRole("cell").map((c) => c.textContent);
    expect(cells).toEqual(["https://site.test/a", "Broken <b>link</b>", "main", "link", "follow", "404"]);
    // Crawled text stays text.
    expect(links[0].querySelector("b")).toBeNull();
    expect(within(links[1]).getAllByRole("cell")[4].textContent).toBe("nofollow");
    // The links come a page at a time from `urlLinks`, never capped at a first page.
    expect(screen.getByTestId("url-links-range").textContent?.replace(/\s+/g, " ")).toBe("Inlinks 1–2 of 3");
    expect(backend.callsOf("urlLinks")).toEqual([[2, "https://site.test/gone", "inlinks", 0, 100]]);
    expect(screen.getByTestId("url-detail-tab-inlinks").textContent).toBe("Inlinks (3)");
  });

  it("shows the response headers as text, the SEO's first ones first, and what was not stored", async () => {
    const backend = new FakeBackend();
    backend.details.set("https://site.test/gone", sampleDetail("https://site.test/gone"));
    backend.details.set("https://site.test/d", sampleDetail("https://site.test/d", "duplicate"));
    const { rerender } = renderWith(UrlDetailPane, { auditId: 2, url: "https://site.test/gone" }, backend);
    await fireEvent.click(await screen.findByTestId("url-detail-tab-headers"));
    expect(screen.getByTestId("url-detail-tab-headers").textContent).toBe("Response headers (4)");
    const rows = screen.getAllByTestId("url-detail-header");
    expect(rows.map((r) => r.getAttribute("data-name"))).toEqual(["link", "x-robots-tag", "content-type", "x-markup"]);
    expect(within(rows[0]).getAllByRole("cell").map((c) => c.textContent)).toEqual([
      "link",
      '<https://site.test/shoes>; rel="canonical"',
    ]);
    // A crawled header value is text, never markup.
    expect(within(rows[3]).getAllByRole("cell")[1].textContent).toBe("<img src=x onerror=alert(1)><b>bold</b>");
    expect(screen.getByTestId("url-detail-headers").querySelector("img, b")).toBeNull();
    expect(screen.getByTestId("url-detail-headers-omitted").textContent?.replace(/\s+/g, " ")).toContain(
      "3 more headers were not stored",
    );

    // A URL without stored headers says why.
    await rerender({ auditId: 2, url: "https://site.test/d" });
    await fireEvent.click(await screen.findByTestId("url-detail-tab-headers"));
    expect((await screen.findByTestId("url-detail-no-headers")).textContent).toContain("did not store them");
  });

  it("marks the outlinks to other sites", async () => {
    const backend = new FakeBackend();
    const detail = sampleDetail("https://site.test/gone");
    detail.outlinks = [
      { url: "https://site.test/in", anchor: "In", region: "main", kind: "link", nofollow: false, status: 200, external: false },
      { url: "https://other.test/", anchor: "Out", region: "footer", kind: "link", nofollow: false, status: null, external: true },
    ];
    detail.outlinksTotal = 2;
    backend.details.set(detail.url, detail);
    renderWith(UrlDetailPane, { auditId: 2, url: detail.url }, backend);
    await fireEvent.click(await screen.findByTestId("url-detail-tab-outlinks"));
    await waitFor(() => expect(screen.getAllByTestId("url-detail-link")).toHaveLength(2));
    const rows = screen.getAllByTestId("url-detail-link");
    expect(rows.map((r) => r.getAttribute("data-external"))).toEqual(["false", "true"]);
    expect(within(rows[0]).queryByTestId("url-detail-link-external")).toBeNull();
    expect(within(rows[1]).getByTestId("url-detail-link-external").textContent).toBe("external");
  });

  it("pages through many inlinks and exports every one of them", async () => {
    const backend = new FakeBackend();
    const detail = sampleDetail("https://site.test/gone");
    const link = detail.inlinks[0];
    detail.inlinks = Array.from({ length: 250 }, (_, i) => ({ ...link, url: `https://site.test/from/${i}` }));
    detail.inlinksTotal = 250;
    backend.details.set(detail.url, detail);
    renderWith(UrlDetailPane, { auditId: 2, url: detail.url }, backend);
    await fireEvent.click(await screen.findByTestId("url-detail-tab-inlinks"));
    await waitFor(() => expect(screen.getAllByTestId("url-detail-link")).toHaveLength(100));
    const range = () => screen.getByTestId("url-links-range").textContent?.replace(/\s+/g, " ");
    expect(range()).toBe("Inlinks 1–100 of 250");
    expect((screen.getByTestId("url-links-prev") as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.click(screen.getByTestId("url-links-next"));
    await fireEvent.click(screen.getByTestId("url-links-next"));
    await waitFor(() => expect(range()).toBe("Inlinks 201–250 of 250"));
    expect(screen.getAllByTestId("url-detail-link")).toHaveLength(50);
    expect(within(screen.getAllByTestId("url-detail-link")[0]).getAllByRole("cell")[0].textContent).toBe(
      "https://site.test/from/200",
    );
    expect((screen.getByTestId("url-links-next") as HTMLButtonElement).disabled).toBe(true);

    await fireEvent.click(screen.getByTestId("url-links-export"));
    await waitFor(() =>
      expect(backend.callsOf("exportUrlLinks")).toEqual([[2, detail.url, "inlinks", "/tmp/out.csv"]]),
    );
    expect(backend.callsOf("pickSavePath")).toEqual([["inlinks.csv", "saveCsv"]]);
    expect((await screen.findByTestId("url-links-export-result")).textContent).toBe(
      "Wrote 250 inlinks to /tmp/out.csv",
    );
  });

  it("shows redirect hops, cluster membership and sitemaps, and an error as text", async () => {
    const backend = new FakeBackend();
    backend.details.set("https://site.test/r", sampleDetail("https://site.test/r", "redirect"));
    backend.details.set("https://site.test/d", sampleDetail("https://site.test/d", "duplicate"));
    const { rerender } = renderWith(UrlDetailPane, { auditId: 2, url: "https://site.test/r" }, backend);
    await fireEvent.click(await screen.findByTestId("url-detail-tab-hops"));
    const hops = within(screen.getByTestId("url-detail-hops")).getAllByRole("listitem");
    expect(hops.map((h) => h.textContent?.replace(/\s+/g, " ").trim())).toEqual([
      "https://site.test/r → 301 → https://site.test/b",
      "https://site.test/b → 302 → https://site.test/c",
    ]);
    await rerender({ auditId: 2, url: "https://site.test/d" });
    await waitFor(() => expect(screen.getByTestId("url-detail").getAttribute("data-url")).toBe("https://site.test/d"));
    await fireEvent.click(await screen.findByTestId("url-detail-tab-cluster"));
    const cluster = await screen.findByTestId("url-detail-cluster");
    expect(cluster.getAttribute("data-cluster-id")).toBe("4");
    expect(cluster.textContent).toContain("duplicate");
    expect(cluster.textContent).toContain("301 redirect to https://site.test/shoes");
    await fireEvent.click(screen.getByTestId("url-detail-tab-sitemaps"));
    expect(screen.getByTestId("url-detail-sitemaps").textContent).toContain("https://site.test/sitemap.xml");

    await rerender({ auditId: 2, url: "https://site.test/none" });
    expect((await screen.findByTestId("url-detail-error")).textContent).toContain("no URL https://site.test/none");
  });
});

describe("the pane under the Pages table", () => {
  it("follows the selected row, by click and by arrow keys", async () => {
    const backend = new FakeBackend();
    const table = pagesTable(20);
    table.keys = table.rows.map((row) => String(row[0]));
    backend.tables.set("pages", table);
    for (let i = 0; i < 20; i++) {
      backend.details.set(`https://site.test/p/${i}`, sampleDetail(`https://site.test/p/${i}`));
    }
    renderWith(Tables, { auditId: 1 }, backend);
    expect(await screen.findByTestId("url-detail-hint")).toBeTruthy();
    const rows = await screen.findAllByTestId("table-row");
    await fireEvent.click(rows[2]);
    await waitFor(() =>
      expect(screen.getByTestId("url-detail").getAttribute("data-url")).toBe("https://site.test/p/2"),
    );
    const grid = screen.getByRole("grid");
    await fireEvent.keyDown(grid, { key: "ArrowDown" });
    await fireEvent.keyDown(grid, { key: "ArrowDown" });
    await waitFor(() =>
      expect(screen.getByTestId("url-detail").getAttribute("data-url")).toBe("https://site.test/p/4"),
    );
    expect(await screen.findAllByTestId("url-detail-field")).not.toHaveLength(0);
    expect(backend.callsOf("urlDetail").at(-1)).toEqual([1, "https://site.test/p/4"]);
  });
});

describe("the pane in a cluster's page", () => {
  it("shows the clicked member and follows the arrow keys", async () => {
    const backend = new FakeBackend();
    const cluster = sampleCluster();
    backend.clusters.set(4, cluster);
    for (const m of cluster.members) backend.details.set(m.url, sampleDetail(m.url, "duplicate"));
    renderWith(ClusterPage, { auditId: 2, clusterId: 4 }, backend);
    const rows = await screen.findAllByTestId("member-row");
    expect(screen.queryByTestId("url-detail")).toBeNull();
    await fireEvent.click(rows[1]);
    await waitFor(() => expect(screen.getByTestId("url-detail").getAttribute("data-url")).toBe(cluster.members[1].url));
    await fireEvent.keyDown(screen.getByTestId("members-table"), { key: "ArrowDown" });
    await waitFor(() => expect(screen.getByTestId("url-detail").getAttribute("data-url")).toBe(cluster.members[2].url));
    expect(rows[2].getAttribute("aria-selected")).toBe("true");
  });
});
