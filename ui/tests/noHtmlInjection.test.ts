// Crawled content is shown as text only: no source under src/ may turn a string into markup,
// link a crawled URL, or carry an inline script.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "src");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(svelte|ts|js|html|css)$/.test(name) ? [path] : [];
  });
}

/** Constructs that render or navigate to untrusted text. */
const FORBIDDEN: { name: string; pattern: RegExp }[] = [
  { name: "{@html}", pattern: /\{\s*@html/ },
  { name: "innerHTML", pattern: /innerHTML/ },
  { name: "outerHTML", pattern: /outerHTML/ },
  { name: "insertAdjacentHTML", pattern: /insertAdjacentHTML/ },
  { name: "document.write", pattern: /document\.write/ },
  { name: "an href built from data", pattern: /href=\{|href="\{/ },
];

describe("sources under src/", () => {
  const files = sources(SRC);

  it("are found", () => {
    expect(files.some((file) => file.endsWith("DataTable.svelte"))).toBe(true);
  });

  for (const { name, pattern } of FORBIDDEN) {
    it(`never use ${name}`, () => {
      const offenders = files
        .filter((file) => !file.endsWith(".css"))
        .filter((file) => pattern.test(readFileSync(file, "utf8")))
        .map((file) => relative(SRC, file));
      expect(offenders).toEqual([]);
    });
  }

  it("the page loads no inline script (the CSP forbids them)", () => {
    const html = readFileSync(join(SRC, "..", "index.html"), "utf8");
    const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [tag, body] of scripts) {
      expect(tag).toMatch(/\bsrc="/);
      expect(body.trim()).toBe("");
    }
  });
});
