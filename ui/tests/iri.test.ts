import { describe, expect, it } from "vitest";
import { displayUrl } from "../src/lib/iri";

describe("displayUrl", () => {
  it("decodes UTF-8 letters and unreserved characters in path, query and fragment", () => {
    expect(displayUrl("https://a.test/%C3%A4rger?q=%E6%97%A5%E6%9C%AC#%C3%A9")).toBe("https://a.test/ärger?q=日本#é");
    expect(displayUrl("https://a.test/%7Euser/%41b%2d%5F%2E")).toBe("https://a.test/~user/Ab-_.");
    expect(displayUrl("https://a.test/%F0%9F%98%80")).toBe("https://a.test/😀");
  });

  it("keeps reserved delimiters, percent and other ASCII encoded", () => {
    const kept = "https://a.test/a%2Fb%3Fc%26d%23e%25f%3Dg%20h%2B%22%3C";
    expect(displayUrl(kept)).toBe(kept);
    // A decoded %25 would make "%2F" appear: it stays.
    expect(displayUrl("https://a.test/%252F")).toBe("https://a.test/%252F");
  });

  it("keeps invalid, overlong and truncated UTF-8 encoded", () => {
    for (const url of [
      "https://a.test/%C3",
      "https://a.test/%C3%28",
      "https://a.test/%C0%AF",
      "https://a.test/%E0%80%AF",
      "https://a.test/%ED%A0%80",
      "https://a.test/%FF",
      "https://a.test/%E6%97",
      "https://a.test/%zz%4",
    ]) {
      expect(displayUrl(url), url).toBe(url);
    }
    // A valid character after an invalid byte is still decoded.
    expect(displayUrl("https://a.test/%C3%C3%A4")).toBe("https://a.test/%C3ä");
  });

  it("keeps invisible, spacing, bidi and delimiter look-alike characters encoded", () => {
    for (const url of [
      "https://a.test/%E2%80%AE", // right-to-left override
      "https://a.test/%E2%80%8B", // zero-width space
      "https://a.test/%C2%A0", // no-break space
      "https://a.test/%E3%80%80", // ideographic space
      "https://a.test/%C2%85", // next line (a control)
      "https://a.test/%E2%88%95", // division slash
      "https://a.test/%EF%BC%8F", // fullwidth solidus
      "https://a.test/%EF%BC%9F", // fullwidth question mark
      "https://a.test/%EF%BB%BF", // byte order mark
    ]) {
      expect(displayUrl(url), url).toBe(url);
    }
  });

  it("never touches the scheme and host, and leaves text without escapes alone", () => {
    expect(displayUrl("https://xn--bcher-kva.test/%C3%A4")).toBe("https://xn--bcher-kva.test/ä");
    expect(displayUrl("https://user%40x@a.test/")).toBe("https://user%40x@a.test/");
    expect(displayUrl("https://a.test/plain")).toBe("https://a.test/plain");
    expect(displayUrl("")).toBe("");
    expect(displayUrl("/relative/%C3%A4")).toBe("/relative/ä");
  });
});
