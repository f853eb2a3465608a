//! Which family a finding belongs to, from its id's prefix.

/// The families, in the order the app lists them.
pub const FAMILIES: [&str; 7] = [
    "duplicates",
    "canonicals",
    "redirects",
    "sitemaps",
    "dust",
    "hreflang",
    "crawl",
];

/// The family of a finding id such as `DUP-HOST`: duplicates, canonicals, redirects,
/// sitemaps, dust (learned rules and policy rules that do not hold), hreflang, or crawl
/// (everything else: traps, robots.txt, links).
pub fn family(code: &str) -> &'static str {
    match code {
        "DUP-DUST" | "RULE-DOES-NOT-HOLD" => "dust",
        "CLUSTER-CONFLICT" => "duplicates",
        "LINK-TO-REDIRECT" => "redirects",
        _ => match code.split('-').next().unwrap_or("") {
            "DUP" => "duplicates",
            "CANON" => "canonicals",
            "REDIRECT" => "redirects",
            "SITEMAP" => "sitemaps",
            "HREFLANG" => "hreflang",
            _ => "crawl",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_follow_prefixes() {
        assert_eq!(family("DUP-HOST"), "duplicates");
        assert_eq!(family("DUP-DUST"), "dust");
        assert_eq!(family("RULE-DOES-NOT-HOLD"), "dust");
        assert_eq!(family("CANON-LOOP"), "canonicals");
        assert_eq!(family("REDIRECT-CHAIN"), "redirects");
        assert_eq!(family("LINK-TO-REDIRECT"), "redirects");
        assert_eq!(family("SITEMAP-ERROR"), "sitemaps");
        assert_eq!(family("TRAP"), "crawl");
        assert_eq!(family("ROBOTS-HIDES-DUP"), "crawl");
        assert_eq!(family("HREFLANG-NO-RETURN"), "hreflang");
    }
}
