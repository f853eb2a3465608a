import { render } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import BreakableUrl from "../src/components/BreakableUrl.svelte";
import { splitUrl } from "../src/lib/breakUrl";

describe("splitUrl", () => {
  it("cuts after slashes and equals signs, before ? and &", () => {
    expect(splitUrl("https://example.test/shoes/red-sneaker?color=red&sort=price")).toEqual([
      "https://",
      "example.test/",
      "shoes/",
      "red-sneaker",
      "?color=",
      "red",
      "&sort=",
      "price",
    ]);
  });

  it("keeps runs of slashes whole and never cuts inside a word", () => {
    expect(splitUrl("http://a.test//double//slash")).toEqual(["http://", "a.test//", "double//", "slash"]);
    expect(splitUrl("https://example.test/averyveryveryverylongsegmentwithoutseparators")).toEqual([
      "https://",
      "example.test/",
      "averyveryveryverylongsegmentwithoutseparators",
    ]);
  });

  it("joins back to the URL exactly, with no empty piece", () => {
    for (const url of [
      "",
      "/",
      "?",
      "a=b",
      "https://x.test/?&&a==b&",
      "https://x.test/p?q=1#frag/ment",
      "not a url at all",
      "https://例え.test/ärger?ü=ö",
    ]) {
      const pieces = splitUrl(url);
      expect(pieces.join("")).toBe(url);
      expect(pieces.every((p) => p !== "")).toBe(true);
    }
  });
});

describe("BreakableUrl", () => {
  it("renders the pieces as text with <wbr> between them, never as markup", () => {
    const url = "https://x.test/<b>bold</b>?a=<img src=x onerror=alert(1)>";
    const { container } = render(BreakableUrl, { props: { url, testId: "u" } });
    const span = container.querySelector("[data-testid=u]") as HTMLElement;
    expect(span.textContent).toBe(url);
    expect(span.getAttribute("title")).toBe(url);
    expect(span.querySelector("b, img")).toBeNull();
    expect(span.querySelectorAll("wbr")).toHaveLength(splitUrl(url).length - 1);
    // Only text and <wbr> inside (and the comments Svelte anchors its blocks with).
    for (const node of span.childNodes) {
      const allowed: number[] = [Node.TEXT_NODE, Node.COMMENT_NODE];
      expect(allowed.includes(node.nodeType) || node.nodeName === "WBR").toBe(true);
    }
  });
});
