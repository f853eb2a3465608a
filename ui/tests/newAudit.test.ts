import { fireEvent, screen, waitFor } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import type { Progress, StartAuditRequest } from "../src/lib/api";
import { emptyForm, validateForm } from "../src/lib/newAudit";
import NewAudit from "../src/views/NewAudit.svelte";
import { FakeBackend, sampleAudit, sampleProgress } from "./fakeBackend";
import { renderWith } from "./render";

function progress(auditId: number, change: Partial<Progress>): Progress {
  return sampleProgress(auditId, change);
}

describe("validateForm", () => {
  it("builds a list audit from the list fields, without a start URL", () => {
    const form = {
      ...emptyForm(),
      source: "list" as const,
      url: "not used",
      listFile: " /home/me/access.log ",
      site: "https://site.test",
      logAgent: " Googlebot ",
      follow: true,
    };
    const checked = validateForm(form);
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.list).toEqual({
      files: ["/home/me/access.log"],
      site: "https://site.test",
      logAgent: "Googlebot",
      follow: true,
    });
    expect(checked.request.url).toBe("");
    const missing = validateForm({ ...emptyForm(), source: "list", site: "ftp://x" });
    expect(missing.ok).toBe(false);
    if (missing.ok) return;
    expect(missing.errors.listFile).toContain("Choose a URL list");
    expect(missing.errors.site).toContain("http");
    expect(missing.errors.url).toBeUndefined();
  });

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
      list: null,
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
        allowInternal: false,
        includes: [],
        excludes: [],
        followNofollow: true,
        probeVariants: true,
        requestsPerSecond: null,
        render: false,
      } satisfies StartAuditRequest,
    });
  });

  it("maps the crawl settings to the command line's options", () => {
    const checked = validateForm({
      ...emptyForm(),
      url: "site.test",
      includes: " ^https://site\\.test/blog/ \n\n",
      excludes: "\\?replytocom=\n/tag/",
      followNofollow: false,
      probeVariants: false,
      rate: "0.5",
      render: true,
    });
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    // A bare domain goes as typed: the crawl audits it over https, as the command line does.
    expect(checked.request).toMatchObject({
      url: "site.test",
      includes: ["^https://site\\.test/blog/"],
      excludes: ["\\?replytocom=", "/tag/"],
      followNofollow: false,
      probeVariants: false,
      requestsPerSecond: 0.5,
      render: true,
    });
    for (const bare of ["www.site.test/blog", "localhost:8080"]) {
      expect(validateForm({ ...emptyForm(), url: bare }).ok).toBe(true);
    }
    const badRate = validateForm({ ...emptyForm(), url: "https://site.test/", rate: "fast" });
    expect(!badRate.ok && badRate.errors.rate).toContain("Requests per second");
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

  it("renders with Chromium when its box is ticked, and says when Chromium is not installed", async () => {
    const backend = new FakeBackend();
    renderWith(NewAudit, {}, backend);
    await waitFor(() => expect(backend.callsOf("renderUnavailable")).toHaveLength(1));
    expect(screen.queryByTestId("audit-render-missing")).toBeNull();
    await fireEvent.input(screen.getByTestId("audit-url"), { target: { value: "https://site.test/" } });
    await fireEvent.click(screen.getByTestId("audit-render"));
    await fireEvent.click(screen.getByTestId("audit-start"));
    await waitFor(() => expect(backend.callsOf("startAudit")).toHaveLength(1));
    expect(backend.callsOf("startAudit")[0][0]).toMatchObject({ render: true });

    const without = new FakeBackend();
    without.noChromium = "no Chromium at /usr/bin/chromium (install the `chromium` package)";
    renderWith(NewAudit, {}, without);
    expect((await screen.findByTestId("audit-render-missing")).textContent).toBe(
      "Chromium is not installed on this machine, so an audit that renders cannot start: no Chromium at /usr/bin/chromium (install the `chromium` package)",
    );
  });

  it("clears a URL's error as soon as the URL is corrected", async () => {
    const backend = new FakeBackend();
    renderWith(NewAudit, {}, backend);
    await fireEvent.input(screen.getByTestId("audit-url"), { target: { value: "ftp://site.test/" } });
    await fireEvent.click(screen.getByTestId("audit-start"));
    expect(await screen.findByTestId("error-url")).toBeTruthy();
    await fireEvent.input(screen.getByTestId("audit-url"), { target: { value: "site.test" } });
    await waitFor(() => expect(screen.queryByTestId("error-url")).toBeNull());
    expect(screen.getByTestId("audit-url").getAttribute("aria-invalid")).toBeNull();
    expect(screen.getByTestId("audit-resolve-help").textContent).toContain("system's DNS");
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
          allowInternal: false,
          includes: [],
          excludes: [],
          followNofollow: true,
          probeVariants: true,
          requestsPerSecond: null,
          render: false,
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

  it("allows internal addresses only when its box is ticked, worded as the command line's flag", async () => {
    const backend = new FakeBackend();
    renderWith(NewAudit, {}, backend);
    const box = screen.getByTestId("audit-allow-internal") as HTMLInputElement;
    expect(box.checked).toBe(false);
    const help = screen.getByTestId("audit-allow-internal-help").textContent ?? "";
    // The command line's --allow-internal help, word for word up to its flag names.
    expect(help.replace(/\s+/g, " ")).toContain(
      "a site whose host name resolves to a non-public address (loopback, private, link-local, a cloud metadata service): refused without it, since a DNS answer cannot tell a staging server from a machine's other services",
    );
    await fireEvent.input(screen.getByTestId("audit-url"), { target: { value: "http://staging.test/" } });
    await fireEvent.click(screen.getByTestId("audit-start"));
    await fireEvent.click(box);
    await fireEvent.click(screen.getByTestId("audit-start"));
    await waitFor(() => expect(backend.callsOf("startAudit")).toHaveLength(2));
    const calls = backend.callsOf("startAudit") as [StartAuditRequest][];
    expect(calls.map(([request]) => request.allowInternal)).toEqual([false, true]);
  });

  it("offers no Resume for a failed audit that cannot resume, and no rate without pages", async () => {
    const backend = new FakeBackend();
    backend.nextAuditId = 6;
    const { board } = renderWith(NewAudit, {}, backend);
    await board.listen(backend);
    await fireEvent.input(screen.getByTestId("audit-url"), { target: { value: "http://site.test" } });
    await fireEvent.click(screen.getByTestId("audit-start"));
    await screen.findByTestId("progress-panel");
    backend.audits = [{ ...sampleAudit(6, "failed"), resumable: false, failure: "no page answered 2xx" }];
    backend.emitFinished(progress(6, { phase: "failed", fetched: 0, pagesPerSecond: 179.6 }));
    await waitFor(() => expect(screen.getByTestId("progress-phase").textContent).toBe("failed"));
    await waitFor(() => expect(backend.callsOf("listAudits").length).toBeGreaterThan(0));
    expect(screen.queryByTestId("progress-resume")).toBeNull();
    expect(screen.getByTestId("progress-rate").textContent?.trim()).toBe("–");
  });

  it("resumes a cancelled audit", async () => {
    const backend = new FakeBackend();
    backend.nextAuditId = 5;
    const { board } = renderWith(NewAudit, {}, backend);
    await board.listen(backend);
    await fireEvent.input(screen.getByTestId("audit-url"), { target: { value: "http://site.test" } });
    await fireEvent.click(screen.getByTestId("audit-start"));
    await screen.findByTestId("progress-panel");
    backend.audits = [sampleAudit(5, "cancelled")];
    backend.emitFinished(progress(5, { phase: "cancelled", fetched: 10 }));
    await fireEvent.click(await screen.findByTestId("progress-resume"));
    expect(backend.callsOf("resumeAudit")).toEqual([[5]]);
    await waitFor(() => expect(screen.getByTestId("progress-phase").textContent).toBe("starting"));
    backend.emitProgress(progress(5, { phase: "crawling", fetched: 11 }));
    await waitFor(() => expect(screen.getByTestId("progress-fetched").textContent).toBe("11"));
  });
});

describe("New audit: from a list or log file", () => {
  it("chooses the file through the dialog and starts a list audit", async () => {
    const backend = new FakeBackend();
    renderWith(NewAudit, {}, backend);
    await fireEvent.click(screen.getByTestId("audit-source-list"));
    expect(screen.queryByTestId("audit-url")).toBeNull();
    await fireEvent.click(screen.getByTestId("audit-list-browse"));
    await waitFor(() =>
      expect((screen.getByTestId("audit-list-file") as HTMLInputElement).value).toBe("/home/me/Documents/urls.txt"),
    );
    await fireEvent.input(screen.getByTestId("audit-site"), { target: { value: "https://site.test" } });
    await fireEvent.click(screen.getByTestId("audit-follow"));
    await fireEvent.input(screen.getByTestId("audit-resolve"), { target: { value: "site.test:443:127.0.0.1" } });
    await fireEvent.click(screen.getByTestId("audit-start"));
    await waitFor(() => expect(backend.callsOf("startListAudit")).toHaveLength(1));
    const [request, list] = backend.callsOf("startListAudit")[0] as [StartAuditRequest, unknown];
    expect(request.resolve).toEqual(["site.test:443:127.0.0.1"]);
    expect(list).toEqual({
      files: ["/home/me/Documents/urls.txt"],
      site: "https://site.test",
      logAgent: null,
      follow: true,
    });
    expect(backend.callsOf("startAudit")).toHaveLength(0);
  });

  it("keeps a cancelled dialog's field as it was, and asks for a file before starting", async () => {
    const backend = new FakeBackend();
    backend.listFile = null;
    renderWith(NewAudit, {}, backend);
    await fireEvent.click(screen.getByTestId("audit-source-list"));
    await fireEvent.click(screen.getByTestId("audit-list-browse"));
    await waitFor(() => expect(backend.callsOf("pickListFile")).toHaveLength(1));
    expect((screen.getByTestId("audit-list-file") as HTMLInputElement).value).toBe("");
    await fireEvent.click(screen.getByTestId("audit-start"));
    expect(await screen.findByTestId("error-list-file")).toBeTruthy();
    expect(backend.callsOf("startListAudit")).toHaveLength(0);
  });

  it("keeps what was typed, resolve overrides included, across views", async () => {
    const backend = new FakeBackend();
    const first = renderWith(NewAudit, {}, backend);
    await fireEvent.input(screen.getByTestId("audit-url"), { target: { value: "https://kept.test/" } });
    await fireEvent.input(screen.getByTestId("audit-resolve"), { target: { value: "kept.test:443:127.0.0.1" } });
    first.unmount();
    // The same app state, a new instance of the view (as after visiting another view).
    const { render } = await import("@testing-library/svelte");
    const { APP } = await import("../src/lib/app.svelte");
    const { BACKEND } = await import("../src/lib/backend");
    const { BOARD, ProgressBoard } = await import("../src/lib/progress.svelte");
    render(NewAudit, {
      context: new Map<symbol, unknown>([
        [BACKEND, backend],
        [APP, first.app],
        [BOARD, new ProgressBoard()],
      ]),
    });
    expect((screen.getByTestId("audit-url") as HTMLInputElement).value).toBe("https://kept.test/");
    expect((screen.getByTestId("audit-resolve") as HTMLTextAreaElement).value).toBe("kept.test:443:127.0.0.1");
  });
});
