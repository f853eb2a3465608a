// Every test hook in src/ is documented in TESTIDS.md, which the end-to-end test relies on.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : name.endsWith(".svelte") ? [path] : [];
  });
}

describe("TESTIDS.md", () => {
  it("lists every literal data-testid and testId used under src/", () => {
    const doc = readFileSync(join(ROOT, "TESTIDS.md"), "utf8");
    const ids = new Set<string>();
    for (const file of files(join(ROOT, "src"))) {
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(/(?:data-testid|testId|rowTestId)="([a-z-]+)(\{)?/g)) {
        // A hook with a variable part is documented by its prefix, e.g. `sort-<columnKey>`.
        ids.add(match[2] ? `${match[1]}<` : match[1]);
      }
      for (const match of text.matchAll(/testId: "([a-z-]+)"/g)) ids.add(match[1]);
    }
    expect(ids.size).toBeGreaterThan(60);
    const missing = [...ids].filter((id) => !doc.includes(`\`${id}`));
    expect(missing).toEqual([]);
  });
});
