// Where a long URL may wrap: after a `/` (after the whole `//` of `https://`), before a `?` or
// an `&`, and after an `=`, never inside a word. `BreakableUrl.svelte` renders the pieces as
// text with `<wbr>` elements between them.

/**
 * `url` cut into pieces that join back to it exactly; a line may break between two pieces.
 * Runs of slashes stay whole (`https://`, `a//b`), a `?` or `&` starts a piece, an `=` or
 * a run of slashes ends one, and no piece is empty.
 */
export function splitUrl(url: string): string[] {
  const pieces: string[] = [];
  let current = "";
  for (let i = 0; i < url.length; i++) {
    const ch = url[i];
    if ((ch === "?" || ch === "&") && current !== "") {
      pieces.push(current);
      current = "";
    }
    current += ch;
    const endsSlashes = ch === "/" && url[i + 1] !== "/";
    if (endsSlashes || ch === "=") {
      pieces.push(current);
      current = "";
    }
  }
  if (current !== "") pieces.push(current);
  return pieces;
}
