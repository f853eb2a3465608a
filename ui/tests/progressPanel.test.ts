import { fireEvent, screen, waitFor, within } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import ProgressPanel from "../src/components/ProgressPanel.svelte";
import { statusClasses } from "../src/lib/statusClasses";
import { FakeBackend, NO_STATUSES, sampleDetail, sampleProgress } from "./fakeBackend";
import { renderWith } from "./render";

const GONE = "https://site.test/gone";
const DOWN = "https://site.test/%C3%A4rger?x=<b>1</b>";

function crawling() {
  return sampleProgress(3, {
    fetched: 120,
    statuses: { ...NO_STATUSES, success: 100, redirect: 12, clientError: 5, serverError: 2, noResponse: 1, blocked: 3 },
    latestErrors: [
      { url: GONE, status: 404, error: null, at: Date.UTC(2026, 0, 2, 10, 30, 5) },
      { url: DOWN, status: null, error: "timeout", at: Date.UTC(2026, 0, 2, 10, 30, 1) },
    ],
  });
}

describe("statusClasses", () => {
  it("lists every class in order, other codes only when there are any", () => {
    expect(statusClasses(NO_STATUSES).map((c) => c.label)).toEqual([
      "2xx",
      "3xx",
      "4xx",
      "5xx",
      "No response",
      "Blocked",
    ]);
    const some = statusClasses({ ...NO_STATUSES, other: 2, clientError: 7 });
    expect(some.find((c) => c.key === "other")?.count).toBe(2);
    expect(some.find((c) => c.key === "client-error")?.count).toBe(7);
  });
});

describe("ProgressPanel", () => {
  it("shows the answers by status class and the latest errors as text", async () => {
    const backend = new FakeBackend();
    const { board } = renderWith(ProgressPanel, { auditId: 3 }, backend);
    board.update(crawling());
    const items = await screen.findAllByTestId("progress-status");
    const shown = Object.fromEntries(
      items.map((i) => [i.getAttribute("data-class"), within(i).getByTestId("progress-status-count").textContent]),
    );
    expect(shown).toEqual({
      success: "100",
      redirect: "12",
      "client-error": "5",
      "server-error": "2",
      "no-response": "1",
      blocked: "3",
    });
    expect(items[2].classList.contains("client-error")).toBe(true);
    const errors = screen.getAllByTestId("progress-latest-error");
    expect(errors.map((e) => e.getAttribute("data-url"))).toEqual([GONE, DOWN]);
    expect(errors[0].textContent).toContain("404");
    expect(errors[1].textContent).toContain("timeout");
    // Shown decoded for reading, never as markup; the exact URL in the title.
    expect(errors[1].textContent).toContain("https://site.test/ärger?x=<b>1</b>");
    expect(errors[1].querySelector("b")).toBeNull();
    expect(errors[1].getAttribute("title")).toBe(DOWN);
  });

  it("opens a latest error's detail pane, and its menu copies and opens the URL", async () => {
    const backend = new FakeBackend();
    backend.details.set(GONE, { ...sampleDetail(GONE), live: true });
    const { board } = renderWith(ProgressPanel, { auditId: 3 }, backend);
    board.update(crawling());
    const [gone] = await screen.findAllByTestId("progress-latest-error");
    expect(screen.queryByTestId("url-detail")).toBeNull();
    await fireEvent.click(gone);
    const pane = await screen.findByTestId("url-detail");
    expect(pane.getAttribute("data-url")).toBe(GONE);
    expect(backend.callsOf("urlDetail")).toEqual([[3, GONE]]);
    expect((await screen.findByTestId("url-detail-live")).textContent).toContain("still being crawled");
    await waitFor(() =>
      expect(
        screen
          .getAllByTestId("url-detail-field")
          .find((f) => f.getAttribute("data-key") === "status_code")?.textContent,
      ).toBe("404"),
    );
    // A second click closes it.
    await fireEvent.click(gone);
    expect(screen.queryByTestId("url-detail")).toBeNull();

    await fireEvent.contextMenu(gone, { clientX: 50, clientY: 60 });
    await fireEvent.click(within(await screen.findByTestId("context-menu")).getByTestId("context-copy-url"));
    await waitFor(() => expect(backend.clipboard).toEqual([GONE]));
    expect((await screen.findByTestId("action-result")).textContent).toContain("Copied URL");
    await fireEvent.contextMenu(gone, { clientX: 50, clientY: 60 });
    await fireEvent.click(screen.getByTestId("context-open"));
    await waitFor(() => expect(backend.opened).toEqual([GONE]));
    await fireEvent.keyDown(gone, { key: "F10", shiftKey: true });
    await fireEvent.click(await screen.findByTestId("context-details"));
    expect((await screen.findByTestId("url-detail")).getAttribute("data-url")).toBe(GONE);
  });
});
