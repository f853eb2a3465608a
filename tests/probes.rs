//! URL-variant probes of the fixture audit: every probe's verdict matches what the site
//! answers (the fixture's case-insensitive `/shoes`, merged double slashes, the 301s of
//! `/services/`), each variant is requested once, `url_variants.csv` lists every rule
//! and `dustpan report` shows the section. Prints what the probes cost in requests.

use crate::util::{Site, audit_id, path, run};
use audit::{ProbeRule, ProbeVerdict, VariantRule};
use fixture::FixtureConfig;
use std::collections::HashMap;

fn site() -> Site {
    Site::start(FixtureConfig {
        hostile: false,
        slow_delay: std::time::Duration::from_millis(100),
        ..FixtureConfig::default()
    })
}

fn audit(site: &Site, extra: &[&str]) -> store::AuditId {
    let mut flags = vec!["-q"];
    flags.extend(extra);
    let out = run(&site.audit_args("https://example.test/", &flags));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    audit_id(&out.stdout)
}

/// The analysis's URL-variant rules of an audit.
fn variants(site: &Site, id: store::AuditId) -> Vec<VariantRule> {
    let store = site.store();
    site.rt.block_on(async {
        let loaded = view::workflow::load(&store, id, canon::Policy::seo())
            .await
            .unwrap();
        audit::analyse(&loaded.input, &loaded.config).url_variants
    })
}

#[test]
fn probe_verdicts_match_the_site_and_show_in_the_exports_and_the_report() {
    let site = site();
    let id = audit(&site, &[]);
    let rules = variants(&site, id);
    assert_eq!(rules.len(), ProbeRule::ALL.len());
    let by_url: HashMap<&str, (ProbeRule, &audit::VariantProbe)> = rules
        .iter()
        .flat_map(|r| r.probes.iter().map(move |p| (p.url.as_str(), (r.rule, p))))
        .collect();
    let verdict = |url: &str| {
        by_url
            .get(url)
            .map(|(_, p)| p.verdict)
            .unwrap_or_else(|| panic!("{url} was not probed: {:#?}", by_url.keys()))
    };

    // What the fixture does with the variants (crates/fixture/src/site.rs, variant_route).
    assert_eq!(
        verdict("https://example.test/SHOES"),
        ProbeVerdict::Duplicate
    );
    assert_eq!(
        verdict("https://example.test/SHOES/BLUE-SNEAKER"),
        ProbeVerdict::Canonical,
        "case-insensitive, with the sneaker's canonical"
    );
    assert_eq!(
        verdict("https://example.test//shoes"),
        ProbeVerdict::Duplicate
    );
    assert_eq!(
        verdict("https://example.test/services/index.html"),
        ProbeVerdict::RedirectPermanent
    );
    assert_eq!(
        verdict("https://example.test/services/repairs"),
        ProbeVerdict::RedirectPermanent
    );
    assert_eq!(
        verdict("https://example.test/CATALOGUE/"),
        ProbeVerdict::Gone
    );
    assert_eq!(
        verdict("https://www.example.test/catalogue/"),
        ProbeVerdict::RedirectPermanent
    );
    assert_eq!(
        verdict("http://example.test/catalogue/"),
        ProbeVerdict::RedirectPermanent
    );

    // The server's IP address as host is probed by default (the fixture serves the site
    // there too: a duplicate host).
    let ip = rules.iter().find(|r| r.rule == ProbeRule::IpHost).unwrap();
    assert!(ip.samples() >= 1, "{ip:#?}");
    assert!(ip.count(ProbeVerdict::Duplicate) >= 1, "{ip:#?}");
    assert!(
        ip.probes.iter().all(|p| p
            .url
            .starts_with(&format!("https://127.0.0.1:{}/", site.server.port()))),
        "{ip:#?}"
    );

    // Every verdict agrees with the status the variant answered, and every variant of
    // a probe alone was requested exactly once.
    let store = site.store();
    let urls = site.rt.block_on(store.urls(id)).unwrap();
    let probes = site.rt.block_on(store.probes(id)).unwrap();
    let row: HashMap<i64, &store::UrlRow> = urls.iter().map(|u| (u.id, u)).collect();
    let mut requested = 0;
    for p in &probes {
        let u = row[&p.url_id];
        let fetch = site.rt.block_on(store.fetch(id, u.id)).unwrap();
        let status = fetch.as_ref().and_then(|f| f.status);
        let (_, probe) = by_url
            .get(u.url_rfc3986.as_str())
            .unwrap_or_else(|| panic!("{} has no verdict", u.url));
        let ok = match probe.verdict {
            ProbeVerdict::Duplicate
            | ProbeVerdict::Canonical
            | ProbeVerdict::Different
            | ProbeVerdict::Unrendered => status.is_some_and(|s| (200..300).contains(&s)),
            ProbeVerdict::Gone => status.is_some_and(|s| (400..500).contains(&s)),
            ProbeVerdict::RedirectPermanent => matches!(status, Some(301 | 308)),
            ProbeVerdict::RedirectTemporary => status.is_some_and(|s| (300..400).contains(&s)),
            ProbeVerdict::RedirectElsewhere => status.is_some_and(|s| (300..400).contains(&s)),
            ProbeVerdict::Error => status.is_none_or(|s| s >= 500),
            ProbeVerdict::NotFetched => fetch.is_none(),
        };
        assert!(ok, "{}: {:?} but answered {status:?}", u.url, probe.verdict);
        if !probe.known {
            // The fixture logs the Host without its port (an IP-host variant carries it).
            let logged = u.url.replace(&format!(":{}/", site.server.port()), "/");
            assert_eq!(site.requests_for(&logged), 1, "{} requested once", u.url);
            requested += 1;
        }
    }
    assert!(requested > 100, "{requested} variants requested");

    // The rules' findings.
    let case = rules
        .iter()
        .find(|r| r.rule == ProbeRule::PathCase)
        .unwrap();
    assert!(case.count(ProbeVerdict::Duplicate) >= 1, "{case:#?}");
    assert!(case.apache.contains("RewriteMap lc int:tolower"));

    // url_variants.csv: one row per rule.
    let out = site._dir.path().join("export");
    let export = run(&[
        "export".to_owned(),
        "--db".to_owned(),
        path(&site.db),
        "--out".to_owned(),
        path(&out),
    ]);
    assert_eq!(export.code, 0, "{}", export.stderr);
    let mut csv = csv::Reader::from_path(out.join("url_variants.csv")).unwrap();
    let headers = csv.headers().unwrap().clone();
    assert_eq!(&headers[0], "Rule");
    assert!(headers.iter().any(|h| h == "Nginx Rule"));
    assert!(headers.iter().any(|h| h == "Apache Rule"));
    let rows: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
    let words: Vec<&str> = rows.iter().map(|r| &r[0]).collect();
    let expected: Vec<&str> = ProbeRule::ALL.iter().map(|r| r.as_str()).collect();
    assert_eq!(words, expected);
    let case_row = rows.iter().find(|r| &r[0] == "path_case").unwrap();
    assert_eq!(&case_row[1], case.samples().to_string().as_str());

    // The report's section.
    let report = run(&["report".to_owned(), "--db".to_owned(), path(&site.db)]);
    assert_eq!(report.code, 0, "{}", report.stderr);
    assert!(
        report
            .stdout
            .contains("\nURL variants (requested after the crawl"),
        "{}",
        report.stdout
    );
    assert!(
        report
            .stdout
            .lines()
            .any(|l| l.starts_with("  path_case ") && l.contains("https://example.test/")),
        "{}",
        report.stdout
    );
    assert!(report.stdout.contains("VARIANT-DUPLICATE"));

    // What the probes cost: the same audit without them.
    let requests = site.server.requests().len();
    site.server.clear_requests();
    let off = audit(&site, &["--no-probes"]);
    assert!(variants(&site, off).is_empty());
    let without = site.server.requests().len();
    eprintln!(
        "URL-variant probes on the fixture: {} probes, {} requests with them, {without} \
         without ({} more)",
        probes.len(),
        requests,
        requests.saturating_sub(without)
    );
    assert!(requests > without);
}
