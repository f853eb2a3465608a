//! Which [`Family`] a finding belongs to, from its id's prefix.

use crate::types::Family;

/// The families' names, in the order the app lists them.
pub const FAMILIES: [&str; 7] = {
    let mut names = [""; 7];
    let mut i = 0;
    while i < Family::ALL.len() {
        names[i] = Family::ALL[i].as_str();
        i += 1;
    }
    names
};

/// The family of a finding id such as `DUP-HOST`: duplicates, canonicals, redirects,
/// sitemaps, dust (learned rules and policy rules that do not hold), hreflang, or crawl
/// (everything else: traps, robots.txt, links).
pub fn family_of(code: &str) -> Family {
    match code {
        "DUP-DUST" | "RULE-DOES-NOT-HOLD" => Family::Dust,
        "CLUSTER-CONFLICT" => Family::Duplicates,
        "LINK-TO-REDIRECT" => Family::Redirects,
        _ => match code.split('-').next().unwrap_or("") {
            "DUP" => Family::Duplicates,
            "CANON" => Family::Canonicals,
            "REDIRECT" => Family::Redirects,
            "SITEMAP" => Family::Sitemaps,
            "HREFLANG" => Family::Hreflang,
            _ => Family::Crawl,
        },
    }
}

/// The name of the family of a finding id (see [`family_of`]).
pub fn family(code: &str) -> &'static str {
    family_of(code).as_str()
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

    #[test]
    fn names_are_the_wire_form() {
        for (f, name) in Family::ALL.iter().zip(FAMILIES) {
            assert_eq!(serde_json::to_value(f).unwrap(), name);
        }
    }
}
