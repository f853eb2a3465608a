// The Fix plan view (the plan's files paged, the simulation's verdict, verification as a run
// then its verdicts), the Migrate view and the Search Console tab of the URL detail pane, on the
// in-memory backend.
import { fireEvent, screen, waitFor, within } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import UrlDetailPane from "../src/components/UrlDetailPane.svelte";
import type { SearchConsoleView, SimulationPage, VerificationView } from "../src/lib/api";
import FixPlan from "../src/views/FixPlan.svelte";
import Migrate from "../src/views/Migrate.svelte";
import { FakeBackend, sampleAudit, sampleDetail, sampleProgress } from "./fakeBackend";
import { renderWith } from "./render";

const KINDS = [
  ["redirect_loop", "Redirect loops"],
  ["redirect_chain", "Redirect chains"],
  ["orphan", "Pages left without internal links"],
] as const;

function simulation(problems: SimulationPage["problems"]): SimulationPage {
  return {
    clean: problems.length === 0,
    redirects: 12,
    canonicals: 4,
    links: 30,
    sitemapLines: 2,
    sitemapLinesSkipped: 0,
    findingsResolved: 9,
    findingsRemaining: 1,
    findingsNew: [],
    problemCounts: KINDS.map(([kind, words]) => ({
      kind,
      words,
      count: problems.filter((p) => p.kind === kind).length,
    })),
    matched: problems.length,
    offset: 0,
    problems,
  };
}

function planWith(backend: FakeBackend, redirects: number): void {
  backend.planFiles.set("redirect_map", {
    columns: ["source", "target", "status", "change", "site_status", "site_target"],
    rows: Array.from({ length: redirects }, (_, i) => [
      `http://site.test/p/${i}`,
      `https://site.test/p/${i}`,
      "301",
      "new",
      "200",
      "",
    ]),
  });
}

describe("FixPlan", () => {
  it("says a clean plan is clean and pages its redirect map; a URL opens its detail", async () => {
    const backend = new FakeBackend();
    backend.simulation = simulation([]);
    planWith(backend, 150);
    backend.details.set("https://site.test/p/0", sampleDetail("https://site.test/p/0", "duplicate"));
    renderWith(FixPlan, { auditId: 3 }, backend);

    const verdict = await screen.findByTestId("fixplan-verdict");
    expect(verdict.getAttribute("data-clean")).toBe("true");
    expect(verdict.textContent).toContain("clean");
    expect(screen.getByTestId("fixplan-findings").textContent?.replace(/\s+/g, " ")).toContain(
      "9 resolved, 1 remaining, 0 new",
    );
    expect(screen.queryByTestId("fixplan-problems")).toBeNull();

    const rows = await screen.findAllByTestId("fixplan-row");
    expect(rows).toHaveLength(100);
    expect(screen.getByTestId("fixplan-range").textContent?.replace(/\s+/g, " ")).toBe("1–100 of 150");
    expect(backend.callsOf("fixPlanPage")).toEqual([[3, "redirect_map", 0, 100]]);
    await fireEvent.click(screen.getByTestId("fixplan-next"));
    await waitFor(() => expect(screen.getAllByTestId("fixplan-row")).toHaveLength(50));
    expect(backend.callsOf("fixPlanPage").at(-1)).toEqual([3, "redirect_map", 100, 100]);
    await fireEvent.click(screen.getByTestId("fixplan-prev"));
    await waitFor(() => expect(screen.getAllByTestId("fixplan-row")).toHaveLength(100));

    // The source URL of the first row opens its detail pane.
    const url = within(screen.getAllByTestId("fixplan-row")[0]).getAllByTestId("fixplan-url")[0];
    expect(url.getAttribute("data-url")).toBe("http://site.test/p/0");
    backend.details.set("http://site.test/p/0", sampleDetail("http://site.test/p/0", "redirect"));
    await fireEvent.click(url);
    const pane = await screen.findByTestId("url-detail");
    expect(pane.getAttribute("data-url")).toBe("http://site.test/p/0");

    // Another file of the plan.
    await fireEvent.click(screen.getByTestId("fixplan-file-canonicals_to_set"));
    await waitFor(() => expect(backend.callsOf("fixPlanPage").at(-1)).toEqual([3, "canonicals_to_set", 0, 100]));
  });

  it("lists what a plan that is not clean would create, by kind, as text", async () => {
    const backend = new FakeBackend();
    backend.simulation = simulation([
      { kind: "redirect_chain", url: "https://site.test/a", detail: "a -> b -> <b>c</b>" },
      { kind: "orphan", url: "https://site.test/lonely", detail: "no internal link reaches it" },
    ]);
    planWith(backend, 1);
    renderWith(FixPlan, { auditId: 3 }, backend);
    const verdict = await screen.findByTestId("fixplan-verdict");
    expect(verdict.getAttribute("data-clean")).toBe("false");
    expect(verdict.textContent?.replace(/\s+/g, " ")).toContain("not clean: the plan would create 2 problems");
    const counts = within(screen.getByTestId("fixplan-problem-counts")).getAllByRole("row");
    expect(counts.map((r) => [r.getAttribute("data-kind"), within(r).getByTestId("fixplan-problem-count").textContent])).toEqual([
      ["redirect_loop", "0"],
      ["redirect_chain", "1"],
      ["orphan", "1"],
    ]);
    const problems = screen.getAllByTestId("fixplan-problem");
    expect(problems.map((p) => p.getAttribute("data-kind"))).toEqual(["redirect_chain", "orphan"]);
    // Crawled text stays text.
    expect(problems[0].querySelector("b")).toBeNull();
    expect(problems[0].textContent).toContain("<b>c</b>");
  });

  it("verifies the plan as a run, then shows each line's verdict with the counts", async () => {
    const backend = new FakeBackend();
    backend.simulation = simulation([]);
    planWith(backend, 2);
    const result: VerificationView = {
      auditId: 3,
      verificationId: 100,
      outsideScope: 1,
      allDone: false,
      counts: [
        { verdict: "done", count: 1 },
        { verdict: "missing", count: 1 },
        { verdict: "wrong", count: 0 },
        { verdict: "harmful", count: 0 },
        { verdict: "not_checked", count: 0 },
      ],
      checks: [
        { kind: "redirect", url: "http://site.test/p/1", planned: "301 to https://site.test/p/1", verdict: "missing", found: "200" },
        { kind: "redirect", url: "http://site.test/p/0", planned: "301 to https://site.test/p/0", verdict: "done", found: "301" },
      ],
    };
    backend.verifications.set(100, result);
    const { board } = renderWith(FixPlan, { auditId: 3 }, backend);
    await screen.findByTestId("fixplan-verdict");

    // A chosen plan folder.
    await fireEvent.click(screen.getByTestId("fixplan-choose-plan"));
    await waitFor(() => expect(screen.getByTestId("fixplan-plan").textContent).toContain("/home/me/plan"));
    // On a staging server: the overrides, one a line, blank lines left out.
    await fireEvent.input(screen.getByTestId("fixplan-verify-resolve"), {
      target: { value: "site.test:443:10.0.0.5\n\n www.site.test:443:10.0.0.5 \n" },
    });
    await fireEvent.click(screen.getByTestId("fixplan-verify-start"));
    await waitFor(() =>
      expect(backend.callsOf("startVerification")).toEqual([
        [3, "/home/me/plan", ["site.test:443:10.0.0.5", "www.site.test:443:10.0.0.5"]],
      ]),
    );
    // Progress like any run; nothing judged before the run ends.
    board.update(sampleProgress(100, { phase: "crawling" }));
    await screen.findByTestId("progress-panel");
    expect(backend.callsOf("verificationResult")).toEqual([]);
    board.update(sampleProgress(100, { phase: "done" }));
    const shown = await screen.findByTestId("fixplan-verification");
    expect(backend.callsOf("verificationResult")).toEqual([[3, 100, "/home/me/plan"]]);
    expect(shown.getAttribute("data-all-done")).toBe("false");
    expect(shown.textContent).toContain("1 lines name a URL outside");
    const counts = within(screen.getByTestId("fixplan-verdict-counts")).getAllByRole("row");
    expect(counts.map((r) => r.getAttribute("data-verdict"))).toEqual(["done", "missing", "wrong", "harmful", "not_checked"]);
    expect(screen.getAllByTestId("fixplan-check").map((c) => c.getAttribute("data-verdict"))).toEqual(["missing", "done"]);

    // A stored verification judged again.
    backend.verifications.set(7, { ...result, verificationId: 7, allDone: true });
    await fireEvent.input(screen.getByTestId("fixplan-verify-stored"), { target: { value: "7" } });
    await fireEvent.click(screen.getByTestId("fixplan-verify-judge"));
    await waitFor(() => expect(screen.getByTestId("fixplan-verification").getAttribute("data-all-done")).toBe("true"));
    expect(backend.callsOf("verificationResult").at(-1)).toEqual([3, 7, "/home/me/plan"]);
  });
});

describe("Migrate", () => {
  it("maps two audits, unmatched first, opens a URL in its audit and exports the files", async () => {
    const backend = new FakeBackend();
    backend.audits = [sampleAudit(1), sampleAudit(2)];
    backend.migration = {
      oldAudit: 0,
      newAudit: 0,
      kept: 1,
      mapped: 1,
      unmatched: 1,
      rows: [
        { oldUrl: "https://old.test/gone", newUrl: null, basis: "no match", confidence: 0, inlinks: 7, logRequests: 40 },
        { oldUrl: "https://old.test/a", newUrl: "https://new.test/a/", basis: "identical main content", confidence: 95, inlinks: 2, logRequests: 0 },
        { oldUrl: "https://new.test/kept", newUrl: "https://new.test/kept", basis: "same URL", confidence: 100, inlinks: 1, logRequests: 0 },
      ],
      simulation: simulation([]),
    };
    backend.details.set("https://new.test/a/", sampleDetail("https://new.test/a/", "duplicate"));
    renderWith(Migrate, {}, backend);
    await waitFor(() => expect(screen.getByTestId("migrate-old").querySelectorAll("option")).toHaveLength(3));
    expect((screen.getByTestId("migrate-run") as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.change(screen.getByTestId("migrate-old"), { target: { value: "1" } });
    await fireEvent.change(screen.getByTestId("migrate-new"), { target: { value: "2" } });
    await fireEvent.click(screen.getByTestId("migrate-run"));
    await screen.findByTestId("migrate-summary");
    expect(backend.callsOf("migrateAudits")).toEqual([[1, 2]]);
    expect(screen.getByTestId("migrate-summary").textContent?.replace(/\s+/g, " ")).toContain(
      "3 old pages, 1 kept at their URL, 1 mapped, 1 unmatched",
    );
    const rows = screen.getAllByTestId("migrate-row");
    expect(rows.map((r) => r.getAttribute("data-basis"))).toEqual(["no match", "identical main content", "same URL"]);
    expect(within(rows[0]).getAllByRole("cell").map((c) => c.textContent?.trim())).toEqual([
      "https://old.test/gone",
      "none",
      "no match",
      "0",
      "7",
      "40",
    ]);

    // A new URL opens its detail in the new audit.
    await fireEvent.click(within(rows[1]).getByTestId("migrate-new-url"));
    await screen.findByTestId("url-detail");
    expect(backend.callsOf("urlDetail")).toEqual([[2, "https://new.test/a/"]]);

    await fireEvent.click(screen.getByTestId("migrate-export"));
    const done = await screen.findByTestId("migrate-exported");
    expect(backend.callsOf("exportMigration")).toEqual([[1, 2, "/home/me/migration"]]);
    expect(done.textContent).toContain("migration.csv");
    // The map simulated on the new audit: clean, no problem listed.
    const verdict = screen.getByTestId("migrate-verdict");
    expect(verdict.getAttribute("data-clean")).toBe("true");
    expect(verdict.textContent?.replace(/\s+/g, " ")).toContain("12 redirects) simulated on audit #2: clean");
    expect(screen.queryByTestId("migrate-problems")).toBeNull();
  });

  it("shows a map that is not clean: its problems by kind, crawled text as text", async () => {
    const backend = new FakeBackend();
    backend.audits = [sampleAudit(1), sampleAudit(2)];
    backend.migration = {
      oldAudit: 1,
      newAudit: 2,
      kept: 0,
      mapped: 2,
      unmatched: 0,
      rows: [
        { oldUrl: "https://old.test/a", newUrl: "https://new.test/a", basis: "identical text", confidence: 100, inlinks: 1, logRequests: 0 },
        { oldUrl: "https://old.test/b", newUrl: "https://new.test/b", basis: "identical text", confidence: 100, inlinks: 1, logRequests: 0 },
      ],
      simulation: simulation([
        { kind: "redirect_chain", url: "https://old.test/a", detail: "2 hops: https://old.test/a -> https://new.test/a -> <b>x</b>" },
        { kind: "orphan", url: "https://old.test/b", detail: "none" },
      ]),
    };
    renderWith(Migrate, {}, backend);
    await waitFor(() => expect(screen.getByTestId("migrate-old").querySelectorAll("option")).toHaveLength(3));
    await fireEvent.change(screen.getByTestId("migrate-old"), { target: { value: "1" } });
    await fireEvent.change(screen.getByTestId("migrate-new"), { target: { value: "2" } });
    await fireEvent.click(screen.getByTestId("migrate-run"));
    const verdict = await screen.findByTestId("migrate-verdict");
    expect(verdict.getAttribute("data-clean")).toBe("false");
    expect(verdict.textContent?.replace(/\s+/g, " ")).toContain(
      "not clean: 2 problems (Redirect chains: 1, Pages left without internal links: 1)",
    );
    const problems = screen.getAllByTestId("migrate-problem");
    expect(problems.map((p) => p.getAttribute("data-kind"))).toEqual(["redirect_chain", "orphan"]);
    const cells = within(problems[0]).getAllByRole("cell");
    expect(cells[2].textContent).toBe("2 hops: https://old.test/a -> https://new.test/a -> <b>x</b>");
    expect(cells[2].querySelector("b")).toBeNull();
  });
});

describe("UrlDetailPane's Search Console tab", () => {
  const explained: SearchConsoleView = {
    url: "https://site.test/dup",
    reasons: ["Duplicate, Google chose different canonical than user"],
    coverageState: null,
    verdict: null,
    cluster: 4,
    userCanonical: "https://site.test/gone",
    googleCanonical: "https://site.test/dup",
    predicted: "https://site.test/dup",
    agrees: true,
    contradiction: "target_not_indexable",
    detail: "your canonical <i>answers</i> 404",
    fix: "Point the canonical at a page that answers 200.",
    signals: [
      {
        url: "https://site.test/dup",
        status: 200,
        redirectsTo: null,
        canonical: "https://site.test/gone",
        renderedCanonical: null,
        redirectsIn: 0,
        canonicalsIn: 0,
        linksIn: 3,
        sitemaps: 1,
        hreflangIn: 0,
        https: true,
        noindex: false,
      },
    ],
  };

  it("shows the verdict explained for a URL Search Console named, and no tab for another", async () => {
    const backend = new FakeBackend();
    backend.details.set("https://site.test/dup", sampleDetail("https://site.test/dup", "duplicate"));
    backend.details.set("https://site.test/other", sampleDetail("https://site.test/other", "duplicate"));
    backend.explanations.set("https://site.test/dup", explained);
    const { rerender } = renderWith(UrlDetailPane, { auditId: 5, url: "https://site.test/dup" }, backend);
    await fireEvent.click(await screen.findByTestId("url-detail-tab-searchConsole"));
    const tab = screen.getByTestId("url-detail-search-console");
    expect(tab.getAttribute("data-contradiction")).toBe("target_not_indexable");
    expect(screen.getByTestId("url-detail-contradiction").textContent).toContain("your canonical <i>answers</i> 404");
    expect(tab.querySelector("i")).toBeNull();
    expect(screen.getByTestId("url-detail-fix").textContent).toBe("Point the canonical at a page that answers 200.");
    const signal = screen.getAllByTestId("url-detail-signal");
    expect(signal).toHaveLength(1);
    expect(within(signal[0]).getAllByRole("cell")[5].textContent).toBe("3");
    expect(backend.callsOf("explainUrl")).toEqual([[5, "https://site.test/dup"]]);

    await rerender({ auditId: 5, url: "https://site.test/other" });
    await waitFor(() => expect(backend.callsOf("explainUrl")).toHaveLength(2));
    await waitFor(() => expect(screen.queryByTestId("url-detail-tab-searchConsole")).toBeNull());
  });
});
