//! Fix files: the redirect map in CSV, nginx and Apache forms, canonicals, sitemap lines.

use super::B;
use crate::*;

const S: &str = "https://example.com";

fn u(path: &str) -> String {
    format!("{S}{path}")
}

fn site() -> B {
    let mut b = B::new();
    b.page("https://www.example.com/a", 1).page(&u("/a"), 1);
    b.page(&u("/docs/"), 2).page(&u("/docs/index.html"), 2);
    b.redirect(&u("/x1"), &u("/x2"), 301)
        .redirect(&u("/x2"), &u("/x3"), 301)
        .page(&u("/x3"), 3);
    b.redirect(&u("/q?utm_source=a"), &u("/q"), 302)
        .page(&u("/q"), 4);
    b.page(&u("/Price$"), 5)
        .page(&u("/price$"), 5)
        .page(&u("/"), 6);
    b.link(&u("/"), &u("/price$")).link(&u("/price$"), &u("/"));
    b.page(&u("/shoes?color=red&utm_source=x"), 7)
        .page(&u("/shoes?color=red"), 7);
    b.listed(&u("/sitemap.xml"), &u("/x1"))
        .listed(&u("/sitemap.xml"), &u("/"));
    b
}

#[test]
fn redirect_map() {
    let ff = site().analyse().fix_files();
    assert_eq!(
        ff.redirects_csv(),
        "source,target,status,change,site_status,site_target
https://example.com/Price$,https://example.com/price$,301,new,,
https://example.com/docs/index.html,https://example.com/docs/,301,new,,
https://example.com/q?utm_source=a,https://example.com/q,301,changed,302,https://example.com/q
https://example.com/x1,https://example.com/x3,301,changed,301,https://example.com/x2
https://example.com/x2,https://example.com/x3,301,existing,301,https://example.com/x3
https://www.example.com/a,https://example.com/a,301,new,,
"
    );
}

#[test]
fn server_files_hold_only_what_must_change_unless_asked() {
    let mut ff = site().analyse().fix_files();
    let nginx = ff.nginx();
    assert!(nginx.starts_with(
        "# Dustpan redirect map for nginx: 5 redirects.\n\
         # 1 redirect the site already answers is left out (redirect_map.csv lists it).\n"
    ));
    assert!(!nginx.contains("https://example.com/x2\""), "{nginx}");
    assert!(!ff.apache().contains("/x2"));
    ff.include_existing = true;
    assert!(ff.nginx().contains("https://example.com/x2\""));
    assert!(ff.apache().contains("/x2"));
    assert!(ff.netlify().contains("/x2"));
}

#[test]
fn nginx_config() {
    let ff = site().analyse().fix_files();
    assert_eq!(
        ff.nginx(),
        r#"# Dustpan redirect map for nginx: 5 redirects.
# 1 redirect the site already answers is left out (redirect_map.csv lists it).
#
# Include this file in http {}, then add to each server {} that serves one of these
# sites:
#     if ($dustpan_redirect_301) { return 301 $dustpan_redirect_301; }
#
# Sources match exactly and case-sensitively on $scheme://$host$request_uri, on any
# port; a source with a plain path and no query string matches on the normalized
# path ($uri) with any query string (not the site root or a script such as
# index.php, whose pages the query string chooses). The target gets no query
# string but its own.
# Values are quoted; a $ in a target is written %24 (nginx has no escape for it).
map $scheme://$host$request_uri $dustpan_request {
    default "";
    "~^https://example\\.com/Price\\$\z" "301 $scheme://$host$request_uri https://example.com/price%24";
    "https://example.com/docs/index.html" "301 https://example.com/docs/index.html https://example.com/docs/";
    "https://example.com/q?utm_source=a" "301 https://example.com/q?utm_source=a https://example.com/q";
}
map $scheme://$host$uri $dustpan_path {
    default "";
    "https://example.com/x1" "301 https://example.com/x1 https://example.com/x3";
    "https://www.example.com/a" "301 https://www.example.com/a https://example.com/a";
}
map "$dustpan_request $scheme://$host$request_uri" $dustpan_match {
    default $dustpan_path_match;
    "~^(\d+) (\S+) (\S+) \2\z" "$1 $3";
}
map "$dustpan_path $scheme://$host$uri" $dustpan_path_match {
    default "";
    "~^(\d+) (\S+) (\S+) \2\z" "$1 $3";
}
map $dustpan_match $dustpan_redirect_301 {
    default "";
    "~^301 (\S+)\z" $1;
}
"#
    );
}

#[test]
fn apache_config() {
    let ff = site().analyse().fix_files();
    assert_eq!(
        ff.apache(),
        r#"# Dustpan redirect map for Apache httpd (mod_rewrite): 5 redirects.
# 1 redirect the site already answers is left out (redirect_map.csv lists it).
#
# Include this file in each <VirtualHost> that serves one of these sites (or put it
# in the .htaccess of the document root). Sources match on the scheme, the host
# with any port, and exactly, case-sensitively, on the request target of the
# request line; a source with a plain path and no query string matches with any
# query string (not the site root or a script such as index.php, whose pages the
# query string chooses). The target gets no query string but its own.
RewriteEngine On
RewriteCond %{HTTPS} =on
RewriteCond %{HTTP_HOST} ^example\.com\.?(?::[0-9]+)?$ [NC]
RewriteCond %{THE_REQUEST} ^\S+\s/Price\$(?:\s|$)
RewriteRule ^ "https://example.com/price\$" [R=301,L,NE,QSD]
RewriteCond %{HTTPS} =on
RewriteCond %{HTTP_HOST} ^example\.com\.?(?::[0-9]+)?$ [NC]
RewriteCond %{THE_REQUEST} ^\S+\s/docs/index\.html(?:\s|$)
RewriteRule ^ "https://example.com/docs/" [R=301,L,NE,QSD]
RewriteCond %{HTTPS} =on
RewriteCond %{HTTP_HOST} ^example\.com\.?(?::[0-9]+)?$ [NC]
RewriteCond %{THE_REQUEST} ^\S+\s/q\?utm_source=a(?:\s|$)
RewriteRule ^ "https://example.com/q" [R=301,L,NE,QSD]
RewriteCond %{HTTPS} =on
RewriteCond %{HTTP_HOST} ^example\.com\.?(?::[0-9]+)?$ [NC]
RewriteCond %{THE_REQUEST} ^\S+\s/x1(?:\?\S*)?(?:\s|$)
RewriteRule ^ "https://example.com/x3" [R=301,L,NE,QSD]
RewriteCond %{HTTPS} =on
RewriteCond %{HTTP_HOST} ^www\.example\.com\.?(?::[0-9]+)?$ [NC]
RewriteCond %{THE_REQUEST} ^\S+\s/a(?:\?\S*)?(?:\s|$)
RewriteRule ^ "https://example.com/a" [R=301,L,NE,QSD]
"#
    );
}

#[test]
fn canonicals_and_sitemap_lines() {
    let ff = site().analyse().fix_files();
    let tags: Vec<(&str, &str, bool)> = ff
        .canonicals
        .iter()
        .map(|c| (c.page.as_str(), c.href.as_str(), c.present))
        .collect();
    assert_eq!(
        tags,
        [
            (u("/a").as_str(), u("/a").as_str(), false),
            (u("/docs/").as_str(), u("/docs/").as_str(), false),
            (u("/price$").as_str(), u("/price$").as_str(), false),
            (u("/q").as_str(), u("/q").as_str(), false),
            (
                u("/shoes?color=red").as_str(),
                u("/shoes?color=red").as_str(),
                false
            ),
            (
                u("/shoes?color=red&utm_source=x").as_str(),
                u("/shoes?color=red").as_str(),
                false
            ),
            (u("/x3").as_str(), u("/x3").as_str(), false),
        ]
    );
    assert_eq!(
        ff.canonicals[5].html(),
        "<link rel=\"canonical\" href=\"https://example.com/shoes?color=red\">"
    );
    assert_eq!(
        ff.sitemap_csv(),
        "action,sitemap,loc,replacement
add,https://example.com/sitemap.xml,https://example.com/a,
add,https://example.com/sitemap.xml,https://example.com/docs/,
add,https://example.com/sitemap.xml,https://example.com/price$,
add,https://example.com/sitemap.xml,https://example.com/q,
replace,https://example.com/sitemap.xml,https://example.com/x1,https://example.com/x3
"
    );
}

#[test]
fn csv_fields_are_quoted() {
    let ff = FixFiles {
        redirects: vec![RedirectLine {
            source: "https://e.com/a,b".into(),
            target: "https://e.com/\"q\"".into(),
            status: 301,
            today: None,
        }],
        ..FixFiles::default()
    };
    assert_eq!(
        ff.redirects_csv(),
        "source,target,status,change,site_status,site_target\n\"https://e.com/a,b\",\"https://e.com/\"\"q\"\"\",301,new,,\n"
    );
    let html = CanonicalTag {
        page: "p".into(),
        href: "https://e.com/?a=1&b=\"2\"".into(),
        present: false,
    }
    .html();
    assert_eq!(
        html,
        "<link rel=\"canonical\" href=\"https://e.com/?a=1&amp;b=&quot;2&quot;\">"
    );
}

#[test]
fn format_characters_are_never_written_raw_in_a_fix_file() {
    // `/a%E2%80%AEgpj.exe` decodes to `/a`, RIGHT-TO-LEFT OVERRIDE, `gpj.exe`: it reads
    // as `/aexe.jpg`.
    let mut b = B::new();
    b.redirect(&u("/a%E2%80%AEgpj.exe"), &u("/b%E2%80%8Bz"), 301)
        .page(&u("/b%E2%80%8Bz"), 1)
        .redirect(&u("/plain"), &u("/b%E2%80%8Bz"), 301);
    let mut ff = b.analyse().fix_files();
    ff.include_existing = true;
    for (name, text) in [
        ("redirects.csv", ff.redirects_csv()),
        ("canonicals.csv", ff.canonicals_csv()),
        ("sitemap.csv", ff.sitemap_csv()),
        ("nginx", ff.nginx()),
        ("apache", ff.apache()),
        ("netlify", ff.netlify()),
        ("vercel", ff.vercel()),
        ("cloudflare", ff.cloudflare_csv()),
        ("wordpress", ff.wordpress_csv()),
    ] {
        assert!(
            !text.chars().any(canon::is_format_char),
            "{name} writes a format character raw:\n{text}"
        );
    }
    let netlify = ff.netlify();
    assert!(netlify.contains("/plain "), "{netlify}");
    assert!(
        netlify.contains("# Not written:") && netlify.contains("cannot be written"),
        "{netlify}"
    );
}

/// Revision pages a wiki serves with `noindex` under two URLs: out of the index already,
/// so the plan sets no canonical on them, and its simulation finds no canonical to a
/// noindex page (a canonical named a noindex URL on every such page before).
#[test]
fn noindex_duplicates_get_no_canonical_and_the_plan_simulates_without_new_findings() {
    let mut b = B::new();
    for k in 1..=3u64 {
        let short = u(&format!("/w/index.php?oldid={k}"));
        let long = u(&format!("/w/index.php?title=Article&oldid={k}"));
        b.page(&short, 40 + k).page(&long, 40 + k);
        b.noindex(&short).noindex(&long);
        b.link(&u("/"), &short).link(&u("/"), &long);
    }
    b.page(&u("/"), 1);
    let cfg = AnalysisConfig::default();
    let before = analyse(&b.input, &cfg);
    assert_eq!(before.clusters.len(), 3, "{:#?}", before.clusters);
    let files = before.fix_files();
    assert!(
        files.canonicals.iter().all(|c| c.page == c.href),
        "{:#?}",
        files.canonicals
    );
    let plan = simulate::Plan::of(&b.input, &before);
    let sim = simulate::simulate(&b.input, &cfg, &before, &plan);
    assert!(sim.clean(), "{:#?}", sim.problems);
    assert!(sim.findings.new.is_empty(), "{:#?}", sim.findings.new);
}
