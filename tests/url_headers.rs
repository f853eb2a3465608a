//! `dustpan url` shows a URL's response headers (the SEO's first ones first), bounded as
//! stored and made safe for the terminal, and the same headers in its JSON as the app's
//! detail pane reads.

use fixture::FixtureConfig;
use view::Session;
use view::output::UrlDocument;

use crate::util::{Site, audit_id, path, run};

const PAGE: &str = "https://example.test/hostile/headers";

#[test]
fn dustpan_url_shows_the_stored_response_headers() {
    let site = Site::start(FixtureConfig::default());
    let out = run(&site.audit_args(
        PAGE,
        &[
            "-q",
            "--include",
            "hostile/headers",
            "--no-probes",
            "--timeout",
            "20",
        ],
    ));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let id = audit_id(&out.stdout).0;
    let url = |extra: &[&str]| {
        let mut args: Vec<String> = ["url", &id.to_string(), PAGE]
            .iter()
            .chain(extra)
            .map(|s| (*s).to_owned())
            .collect();
        args.extend(["--db".to_owned(), path(&site.db)]);
        run(&args)
    };

    let text = url(&[]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    let section: Vec<&str> = text
        .stdout
        .split("\nResponse headers\n")
        .nth(1)
        .expect("a Response headers section")
        .lines()
        .take_while(|l| !l.is_empty())
        .collect();
    // The headers an SEO checks first, in this order, then the rest as sent.
    assert_eq!(
        section[..4],
        [
            "  link: <https://example.test/hostile/headers>; rel=\"canonical\"",
            "  x-robots-tag: noindex, nofollow",
            "  cache-control: max-age=60",
            "  content-type: text/html; charset=utf-8",
        ]
    );
    assert!(
        section.contains(&"  x-markup: <img src=x onerror=alert(1)><script>alert(2)</script>"),
        "{section:?}"
    );
    let oversized = section
        .iter()
        .find(|l| l.starts_with("  x-oversized: "))
        .unwrap();
    assert!(oversized.ends_with("bytes in all: 20000]"), "{oversized}");
    assert!(oversized.len() < 1100, "{}", oversized.len());
    assert!(
        section
            .last()
            .unwrap()
            .contains("more not stored (at most 32 headers and 8 KiB"),
        "{section:?}"
    );
    assert_eq!(section.len(), 32 + 1, "{section:?}");

    // JSON: the app's detail pane, headers included.
    let json = url(&["--format", "json"]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    let doc: UrlDocument = serde_json::from_str(&json.stdout).unwrap();
    let session = Session::new(site.store());
    let open = site.rt.block_on(session.open(id)).unwrap();
    let app = site
        .rt
        .block_on(open.url_detail_with_headers(&site.store(), PAGE))
        .unwrap();
    assert!(doc.detail.headers_stored);
    assert_eq!(doc.detail.headers, app.headers);
    assert_eq!(doc.detail.headers.len(), 32);
    assert!(doc.detail.headers_omitted > 0);
    assert_eq!(doc.detail.headers[0].name, "link");
}
