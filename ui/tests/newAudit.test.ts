import { fireEvent, screen, waitFor } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import type { Progress, StartAuditRequest } from "../src/lib/api";
import { emptyForm, validateForm } from "../src/lib/newAudit";
import NewAudit from "../src/views/NewAudit.svelte";
import { FakeBackend } from "./fakeBackend";
import { renderWith } from "./render";

function progress(auditId: number, change: Partial<Progress>): Progress {
  return {
    auditId,
    phase: "crawling",
    fetched: 0,
    queued: 0,
    errors: 0,
    pagesPerSecond: 0,
    elapsedMs: 0,
    message: null,
    ...change,
  };
}

describe("validateForm", () => {
  it("builds the request from a valid form", () => {
    const form = {
      ...emptyForm(),
      url: " https://site.test/ ",
      maxUrls: "500",
      maxDepth: "0",
      concurrency: "8",
      respectRobots: false,
      userAgent: "TestBot/1.0",
      resolve: "site.test:443:127.0.0.1\n\n www.site.test:80:127.0.0.1 ",
    };
    expect(validateForm(form)).toEqual({
      ok: true,
      request: {
        url: "https://site.test/",
        maxUrls: 500,
        maxDepth: 0,
        concurrency: 8,
        respectRobots: false,
        userAgent: "TestBot/1.0",
        preset: "seo",
        policyFile: null,
        resolve: ["site.test:443:127.0.0.1", "www.site.test:80:127.0.0.1"],
      } satisfies StartAuditRequest,
    });
  });

  it("uses the policy file instead of the preset when chosen", () => {
    const checked = validateForm({ ...emptyForm(), url: "http://a.test", policyKind: "file", policyFile: "/p.toml" });
    expect(checked.ok && checked.request).toMatchObject({ preset: null, policyFile: "/p.toml" });
  });

  it("names every bad field", () => {
    const checked = validateForm({
      ...emptyForm(),
      url: "ftp://site.test/",
      maxUrls: "-3",
      concurrency: "1000",
      policyKind: "file",
      resolve: "site.test:443",
    });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.errors.url).toBe("The URL must start with http:// or https://.");
    expect(checked.errors.maxUrls).toBe("Max URLs must be a whole number.");
    expect(checked.errors.concurrency).toBe("Concurrency must be between 1 and 256.");
    expect(checked.errors.policyFile).toContain("policy file");
    expect(checked.errors.resolve).toBe('"site.test:443" is not host:port:address.');
    expect(checked.errors.maxDepth).toBeUndefined();
  });

  it("rejects entries run together and addresses that are not IPs", () => {
    const glued = validateForm({
      ...emptyForm(),
      url: "https://site.test/",
      resolve: "a.test:443:127.0.0.1b.test:443:127.0.0.1",
    });
    expect(glued.ok).toBe(false);
    if (!glued.ok) expect(glued.errors.resolve).toContain("must be an IP address");
    const named = validateForm({ ...emptyForm(), url: "https://site.test/", resolve: "a.test:443:localhost" });
    expect(named.ok).toBe(false);
    if (!named.ok) expect(named.errors.resolve).toContain("must be an IP address");
  });

  it("takes entries separated by spaces or commas, and IPv6 addresses", () => {
    const checked = validateForm({
      ...emptyForm(),
      url: "https://site.test/",
      resolve: "a.test:443:127.0.0.1, b.test:80:[::1] c.test:8443:::1",
    });
    expect(checked.ok).toBe(true);
    if (checked.ok) expect(checked.request.resolve).toEqual(["a.test:443:127.0.0.1", "b.test:80:[::1]", "c.test:8443:::1"]);
  });
});

describe("NewAudit", () => {
  it("shows a clear message for a bad URL and starts nothing", async () => {
    const backend = new FakeBackend();
    renderWith(NewAudit, {}, backend);
    await fireEvent.input(screen.getByTestId("audit-url"), { target: { value: "site dot test" } });
    await fireEvent.click(screen.getByTestId("audit-start"));
    expect((await screen.findByTestId("error-url")).textContent).toBe(
      '"site dot test" is not a URL: write it in full, such as https://example.com/.',
    );
    expect(screen.getByTestId("audit-url").getAttribute("aria-invalid")).toBe("true");
    expect(backend.callsOf("startAudit")).toHaveLength(0);
    expect(screen.queryByTestId("progress-panel")).toBeNull();
  });

  it("starts an audit and follows its progress events to the end", async () => {
    const backend = new FakeBackend();
    backend.nextAuditId = 12;
    const { board, app } = renderWith(NewAudit, {}, backend);
    await board.listen(backend);

    await fireEvent.input(screen.getByTestId("audit-url"), { target: { value: "https://site.test/" } });
    await fireEvent.input(screen.getByTestId("audit-max-urls"), { target: { value: "50" } });
    await fireEvent.click(screen.getByTestId("audit-robots"));
    await fireEvent.input(screen.getByTestId("audit-resolve"), { target: { value: "site.test:443:127.0.0.1" } });
    await fireEvent.change(screen.getByTestId("audit-preset"), { target: { value: "aggressive" } });
    await fireEvent.click(screen.getByTestId("audit-start"));

    const panel = await screen.findByTestId("progress-panel");
    expect(panel.getAttribute("data-audit-id")).toBe("12");
    expect(backend.callsOf("startAudit")).toEqual([
      [
        {
          url: "https://site.test/",
          maxUrls: 50,
          maxDepth: null,
          concurrency: null,
          respectRobots: false,
          userAgent: null,
          preset: "aggressive",
          policyFile: null,
          resolve: ["site.test:443:127.0.0.1"],
        },
      ],
    ]);

    // Another audit's events do not move this panel.
    backend.emitProgress(progress(11, { fetched: 999 }));
    backend.emitProgress(progress(12, { phase: "discovery" }));
    await waitFor(() => expect(screen.getByTestId("progress-phase").textContent).toBe("discovery"));
    backend.emitProgress(progress(12, { fetched: 1234, queued: 56, errors: 3, pagesPerSecond: 41.26, elapsedMs: 65_000 }));
    await waitFor(() => expect(screen.getByTestId("progress-fetched").textContent).toBe("1,234"));
    expect(screen.getByTestId("progress-phase").textContent).toBe("crawling");
    expect(screen.getByTestId("progress-queued").textContent).toBe("56");
    expect(screen.getByTestId("progress-errors").textContent).toBe("3");
    expect(screen.getByTestId("progress-rate").textContent).toBe("41.3 pages/s");
    expect(screen.getByTestId("progress-elapsed").textContent).toBe("1:05");

    await fireEvent.click(screen.getByTestId("progress-cancel"));
    expect(backend.callsOf("cancelAudit")).toEqual([[12]]);

    backend.emitFinished(progress(12, { phase: "done", fetched: 1300, elapsedMs: 70_000 }));
    await waitFor(() => expect(screen.getByTestId("progress-phase").textContent).toBe("done"));
    // A late throttled event does not undo the end.
    backend.emitProgress(progress(12, { phase: "crawling", fetched: 1250, elapsedMs: 69_000 }));
    expect(screen.getByTestId("progress-phase").textContent).toBe("done");
    expect(screen.queryByTestId("progress-cancel")).toBeNull();
    await fireEvent.click(screen.getByTestId("progress-open"));
    expect(app.auditId).toBe(12);
  });

  it("resumes a cancelled audit", async () => {
    const backend = new FakeBackend();
    backend.nextAuditId = 5;
    const { board } = renderWith(NewAudit, {}, backend);
    await board.listen(backend);
    await fireEvent.input(screen.getByTestId("audit-url"), { target: { value: "http://site.test" } });
    await fireEvent.click(screen.getByTestId("audit-start"));
    await screen.findByTestId("progress-panel");
    backend.emitFinished(progress(5, { phase: "cancelled", fetched: 10 }));
    await fireEvent.click(await screen.findByTestId("progress-resume"));
    expect(backend.callsOf("resumeAudit")).toEqual([[5]]);
    await waitFor(() => expect(screen.getByTestId("progress-phase").textContent).toBe("starting"));
    backend.emitProgress(progress(5, { phase: "crawling", fetched: 11 }));
    await waitFor(() => expect(screen.getByTestId("progress-fetched").textContent).toBe("11"));
  });
});
