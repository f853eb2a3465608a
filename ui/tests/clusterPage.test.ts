import { fireEvent, screen, waitFor, within } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import ClusterPage from "../src/views/ClusterPage.svelte";
import { FakeBackend, sampleCluster } from "./fakeBackend";
import { renderWith } from "./render";

describe("ClusterPage", () => {
  it("shows every member with its evidence chain and fix, the signals and the findings", async () => {
    const backend = new FakeBackend();
    backend.clusters.set(4, sampleCluster());
    renderWith(ClusterPage, { auditId: 2, clusterId: 4 }, backend);

    const rows = await screen.findAllByTestId("member-row");
    expect(rows).toHaveLength(3);
    expect(backend.callsOf("clusterDetail")).toEqual([[2, 4]]);
    expect(screen.getByTestId("cluster-preferred").textContent).toBe("https://www.site.test/shoes/");
    expect(screen.getByTestId("cluster-cause").textContent).toBe("redirect");

    const redirect = rows[1];
    expect(redirect.getAttribute("data-role")).toBe("redirects");
    expect(within(redirect).getByTestId("member-url").textContent).toBe("http://site.test/shoes");
    const chain = within(redirect).getAllByRole("listitem").map((item) => item.textContent);
    expect(chain).toEqual([
      "redirects (301) to https://site.test/shoes",
      "redirects (301) to https://www.site.test/shoes/",
    ]);
    expect(within(redirect).getByTestId("member-fix").textContent).toBe(
      "301 redirect to https://www.site.test/shoes/ in one hop",
    );

    const duplicate = rows[2];
    // The fix mentions markup: it is shown as the literal text, not turned into an element.
    expect(within(duplicate).getByTestId("member-fix").textContent).toBe(
      'add <link rel=canonical href="https://www.site.test/shoes/">',
    );
    expect(document.querySelector("link[rel=canonical]")).toBeNull();
    expect(within(duplicate).getByText("same key under seo: rules fired strip-tracking-params; the content is identical")).toBeTruthy();
    expect(within(duplicate).getByTestId("member-tier").textContent).toBe("strong");
    expect(within(rows[0]).getByTestId("member-fix").textContent).toBe("");

    const signals = screen.getAllByTestId("signal-row");
    expect(signals.map((row) => row.textContent)).toEqual([
      "redirectshttps://www.site.test/shoes/yes",
      "sitemapshttps://site.test/shoesno",
    ]);
    const finding = screen.getByTestId("finding");
    expect(finding.getAttribute("data-finding-id")).toBe("DUP-HOST");
    expect(within(finding).getByText("Redirect the bare host to www.")).toBeTruthy();
  });

  it("words roles as the reports do, from the generated labels", async () => {
    const backend = new FakeBackend();
    const detail = sampleCluster();
    detail.members[2].role = "unfetched";
    detail.cause = "url_normalization";
    backend.clusters.set(4, detail);
    renderWith(ClusterPage, { auditId: 2, clusterId: 4 }, backend);
    const rows = await screen.findAllByTestId("member-row");
    expect(rows[2].getAttribute("data-role")).toBe("unfetched");
    expect(rows[2].querySelector(".badge")?.textContent).toBe("not fetched");
    expect(screen.getByTestId("cluster-cause").textContent).toBe("URL normalization");
  });

  it("shows an unknown cluster's error as text and goes back to the clusters", async () => {
    const backend = new FakeBackend();
    const { app } = renderWith(ClusterPage, { auditId: 2, clusterId: 99 }, backend);
    expect((await screen.findByTestId("error-message")).textContent).toBe("the audit has no cluster 99");
    await fireEvent.click(screen.getByTestId("cluster-back"));
    await waitFor(() => expect(app.view).toBe("clusters"));
  });
});
