//! Text from outside (crawled pages, lists, logs, stored configurations) made safe for a
//! terminal line: control characters (ESC, BEL, CR, ...) and the invisible format
//! characters that reorder or hide text (U+202E and the other bidirectional controls,
//! zero-width characters) are written as `\u{..}` escapes, so no input can move the
//! cursor, retitle the window, ring the bell or make a line read differently.

use std::borrow::Cow;

/// Whether `c` is written escaped: a control character or an invisible format
/// character ([`canon::is_format_char`]: bidirectional controls, zero-width characters,
/// the byte order mark, ...).
pub fn unsafe_char(c: char) -> bool {
    c.is_control() || canon::is_format_char(c)
}

/// `text` with every [`unsafe_char`] written as `\u{XX}` (borrowed when there is none).
pub fn safe(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_format_characters_are_written_out() {
        assert_eq!(safe("plain text é"), "plain text é");
        assert!(matches!(safe("plain"), Cow::Borrowed(_)));
        assert_eq!(
            safe("a\u{1b}]0;owned\u{7}b\r\n"),
            "a\\u{1b}]0;owned\\u{7}b\\u{d}\\u{a}"
        );
        assert_eq!(safe("abc\u{202e}gpj.exe"), "abc\\u{202e}gpj.exe");
        assert_eq!(safe("\u{9b}31m"), "\\u{9b}31m");
    }
}
