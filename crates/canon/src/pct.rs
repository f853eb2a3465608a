//! Percent-encoding passes over one URL component, each allocation-free when the
//! component has nothing to change.

use std::borrow::Cow;

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// RFC 3986 unreserved: ALPHA / DIGIT / "-" / "." / "_" / "~".
pub(crate) fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// The decoded byte of a valid escape starting at `i` (`s[i] == b'%'`).
fn escape_at(s: &[u8], i: usize) -> Option<u8> {
    let hi = hex_val(*s.get(i + 1)?)?;
    let lo = hex_val(*s.get(i + 2)?)?;
    Some(hi << 4 | lo)
}

fn push_escape(out: &mut Vec<u8>, b: u8) {
    out.push(b'%');
    out.push(HEX_UPPER[usize::from(b >> 4)]);
    out.push(HEX_UPPER[usize::from(b & 15)]);
}

/// Rebuilds `s` byte by byte once `needs(s)` says something changes.
fn rewrite(
    s: &str,
    needs: bool,
    mut each: impl FnMut(&[u8], usize, &mut Vec<u8>) -> usize,
) -> Cow<'_, str> {
    if !needs {
        return Cow::Borrowed(s);
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() + 8);
    let mut i = 0;
    while i < bytes.len() {
        i += each(bytes, i, &mut out);
    }
    // Every pass only swaps ASCII for ASCII or copies bytes through, so the output
    // is as valid UTF-8 as the input.
    match String::from_utf8(out) {
        Ok(text) => Cow::Owned(text),
        Err(_) => Cow::Borrowed(s),
    }
}

/// `%2a` -> `%2A`.
pub(crate) fn uppercase_hex(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    let needs = b.iter().enumerate().any(|(i, &c)| {
        c == b'%'
            && escape_at(b, i).is_some()
            && (b[i + 1].is_ascii_lowercase() || b[i + 2].is_ascii_lowercase())
    });
    rewrite(s, needs, |b, i, out| {
        if b[i] == b'%' && escape_at(b, i).is_some() {
            out.extend_from_slice(&[
                b'%',
                b[i + 1].to_ascii_uppercase(),
                b[i + 2].to_ascii_uppercase(),
            ]);
            3
        } else {
            out.push(b[i]);
            1
        }
    })
}

/// Whether appending a hex digit to `out` would complete a new escape with a literal
/// `%` already there (`%%33` must not become `%3`, then `%3F` on the next pass).
fn completes_escape(out: &[u8], decoded: u8) -> bool {
    let n = out.len();
    decoded.is_ascii_hexdigit()
        && ((n >= 1 && out[n - 1] == b'%')
            || (n >= 2 && out[n - 2] == b'%' && out[n - 1].is_ascii_hexdigit()))
}

/// `%7E` -> `~`, `%41` -> `A`; other escapes stay.
pub(crate) fn decode_unreserved(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    let needs = b
        .iter()
        .enumerate()
        .any(|(i, &c)| c == b'%' && escape_at(b, i).is_some_and(is_unreserved));
    rewrite(s, needs, |b, i, out| match (b[i], escape_at(b, i)) {
        (b'%', Some(d)) if is_unreserved(d) && !completes_escape(out, d) => {
            out.push(d);
            3
        }
        (b'%', Some(_)) => {
            out.extend_from_slice(&[
                b'%',
                b[i + 1].to_ascii_uppercase(),
                b[i + 2].to_ascii_uppercase(),
            ]);
            3
        }
        _ => {
            out.push(b[i]);
            1
        }
    })
}

/// The standard form of a query key or value: `+` and space as `%20`, every byte
/// that is not unreserved percent-encoded (uppercase hex), escapes of unreserved
/// bytes decoded, invalid escapes (`%zz`) kept as they are.
pub(crate) fn standard_query_component(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    let needs = b.iter().enumerate().any(|(i, &c)| match c {
        b'%' => match escape_at(b, i) {
            Some(d) => {
                is_unreserved(d) || b[i + 1].is_ascii_lowercase() || b[i + 2].is_ascii_lowercase()
            }
            None => false,
        },
        _ => !is_unreserved(c),
    });
    rewrite(s, needs, |b, i, out| {
        let c = b[i];
        if c == b'%' {
            match escape_at(b, i) {
                Some(d) if is_unreserved(d) && !completes_escape(out, d) => out.push(d),
                Some(d) => push_escape(out, d),
                None => {
                    out.push(b'%');
                    return 1;
                }
            }
            3
        } else {
            match c {
                b'+' => push_escape(out, b' '),
                c if is_unreserved(c) => out.push(c),
                c => push_escape(out, c),
            }
            1
        }
    })
}

/// Fully decodes a query key for matching against parameter names (`+` is a space);
/// invalid escapes and invalid UTF-8 are kept lossily.
pub(crate) fn decode_query_name(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    if !b.iter().any(|&c| c == b'%' || c == b'+') {
        return Cow::Borrowed(s);
    }
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (b[i], escape_at(b, i)) {
            (b'%', Some(d)) => {
                out.push(d);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

/// Lowercases ASCII letters outside percent-escapes (whose hex digits stay uppercase).
pub(crate) fn lowercase_outside_escapes(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    let mut needs = false;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && escape_at(b, i).is_some() {
            i += 3;
            continue;
        }
        if b[i].is_ascii_uppercase() {
            needs = true;
            break;
        }
        i += 1;
    }
    rewrite(s, needs, |b, i, out| {
        if b[i] == b'%' && escape_at(b, i).is_some() {
            out.extend_from_slice(&b[i..i + 3]);
            3
        } else {
            out.push(b[i].to_ascii_lowercase());
            1
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_case() {
        assert_eq!(uppercase_hex("/foo%2a"), "/foo%2A");
        assert_eq!(uppercase_hex("/a%c2%b1b"), "/a%C2%B1b");
        assert_eq!(uppercase_hex("/100%zz"), "/100%zz");
        assert!(matches!(uppercase_hex("/plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn unreserved() {
        assert_eq!(decode_unreserved("/%7Efoo%2Fbar%41"), "/~foo%2FbarA");
        assert_eq!(decode_unreserved("%3F%2"), "%3F%2");
    }

    #[test]
    fn decoding_never_completes_an_escape() {
        // Found by fuzzing: `%%%%33f` decoded `%33` into `%3f`, an escape of `?`.
        assert_eq!(decode_unreserved("%%%%33f"), "%%%%33f");
        assert_eq!(decode_unreserved("%%34%31"), "%%341");
        assert_eq!(standard_query_component("%%33f"), "%%33f");
        assert_eq!(decode_unreserved("a%33"), "a3");
    }

    #[test]
    fn query_component() {
        assert_eq!(standard_query_component("foo/bar+baz"), "foo%2Fbar%20baz");
        assert_eq!(standard_query_component("a%2fb%41%zz"), "a%2FbA%zz");
        assert_eq!(
            standard_query_component("plain-value_1.2~"),
            "plain-value_1.2~"
        );
    }

    #[test]
    fn lowercase_keeps_escapes() {
        assert_eq!(
            lowercase_outside_escapes("/Intl/zh-CN/%C3%89"),
            "/intl/zh-cn/%C3%89"
        );
    }

    #[test]
    fn name_decoding() {
        assert_eq!(decode_query_name("utm%5Fsource"), "utm_source");
        assert_eq!(decode_query_name("a+b"), "a b");
    }
}
