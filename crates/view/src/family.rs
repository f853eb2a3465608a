//! Which [`Family`] a finding is listed under: the analysis' own catalogue
//! ([`audit::FindingId::family`]), in the app's words.

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

/// The family of a finding of kind `id`.
pub fn family_of(id: audit::FindingId) -> Family {
    id.family().into()
}

/// The name of the family of a finding of kind `id` (see [`family_of`]).
pub fn family(id: audit::FindingId) -> &'static str {
    family_of(id).as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use audit::FindingId;

    #[test]
    fn families_come_from_the_catalogue() {
        let of = |code: &str| family(FindingId::from_code(code).unwrap());
        assert_eq!(of("DUP-HOST"), "duplicates");
        assert_eq!(of("CLUSTER-CONFLICT"), "duplicates");
        assert_eq!(of("DUP-DUST"), "dust");
        assert_eq!(of("RULE-DOES-NOT-HOLD"), "dust");
        assert_eq!(of("CANON-LOOP"), "canonicals");
        assert_eq!(of("REDIRECT-CHAIN"), "redirects");
        assert_eq!(of("LINK-TO-REDIRECT"), "redirects");
        assert_eq!(of("SITEMAP-ERROR"), "sitemaps");
        assert_eq!(of("TRAP"), "crawl");
        assert_eq!(of("ROBOTS-HIDES-DUP"), "crawl");
        assert_eq!(of("LINK-BROKEN"), "crawl");
        assert_eq!(of("HREFLANG-NO-RETURN"), "hreflang");
    }

    #[test]
    fn every_family_has_findings() {
        for f in Family::ALL {
            assert!(FindingId::ALL.iter().any(|&id| family_of(id) == f), "{f:?}");
        }
    }

    #[test]
    fn names_are_the_wire_form() {
        for (f, name) in Family::ALL.iter().zip(FAMILIES) {
            assert_eq!(serde_json::to_value(f).unwrap(), name);
        }
    }
}
