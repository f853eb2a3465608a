// URLs shown for reading: the IRI form of a crawled URL, for display only. Copying and export
// always use the exact URL as crawled.

/** The byte of the `%XX` escape at `at`, or -1 when there is none. */
function hexByte(text: string, at: number): number {
  if (text.charCodeAt(at) !== 0x25 /* % */ || at + 3 > text.length) return -1;
  const hex = text.slice(at + 1, at + 3);
  return /^[0-9A-Fa-f]{2}$/.test(hex) ? parseInt(hex, 16) : -1;
}

/** The length of a UTF-8 sequence its first byte announces (0: not a first byte). */
function sequenceLength(first: number): number {
  if (first >= 0xc2 && first <= 0xdf) return 2;
  if (first >= 0xe0 && first <= 0xef) return 3;
  if (first >= 0xf0 && first <= 0xf4) return 4;
  return 0;
}

/**
 * Characters that stay percent-encoded although they decode cleanly: controls, format
 * characters (bidi overrides, zero-width), private use and unassigned code points, every kind
 * of space, and look-alikes of URL delimiters (`∕` `⁄` `／` `？` `＃` `＆` `﹖` `﹟` `﹠` and
 * friends), so that what is shown never reads as a different URL.
 */
const KEEP_ENCODED =
  /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Z}\u0338\u2044\u2215\u2571\u29f6\u29f8\u2afb\u2afd\uff0f\uff1f\uff03\uff06\uff05\ufe56\ufe5f\ufe60\ufe6a\u0589\u05c3\u2024\ufe52\uff0e]/u;

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * A URL for reading: in its path, query and fragment, percent-encoded unreserved characters
 * (`%7E` → `~`) and percent-encoded UTF-8 that forms a visible non-ASCII character
 * (`%C3%A4` → `ä`) are decoded. Everything else stays as it is: reserved delimiters and `%`
 * itself (`%2F %3F %26 %23 %25 %3D`), spaces and other ASCII, invalid or overlong UTF-8, and the
 * characters of `KEEP_ENCODED`. The scheme and host are never touched.
 */
export function displayUrl(url: string): string {
  if (!url.includes("%")) return url;
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(url);
  const start = authority ? authority[0].length : 0;
  let out = url.slice(0, start);
  let i = start;
  while (i < url.length) {
    const byte = hexByte(url, i);
    if (byte < 0) {
      out += url[i];
      i += 1;
      continue;
    }
    if (byte < 0x80) {
      const char = String.fromCharCode(byte);
      out += UNRESERVED.test(char) ? char : url.slice(i, i + 3);
      i += 3;
      continue;
    }
    const length = sequenceLength(byte);
    const bytes = [byte];
    for (let k = 1; k < length; k++) {
      const next = hexByte(url, i + 3 * k);
      if (next < 0x80 || next > 0xbf) break;
      bytes.push(next);
    }
    let char: string | null = null;
    if (length > 0 && bytes.length === length) {
      try {
        char = decoder.decode(new Uint8Array(bytes));
      } catch {
        char = null;
      }
    }
    if (char !== null && !KEEP_ENCODED.test(char)) {
      out += char;
      i += 3 * length;
    } else {
      // Not a character to show: the first escape stays, the rest is read on.
      out += url.slice(i, i + 3);
      i += 3;
    }
  }
  return out;
}
