//! The server rule of a URL-variant rule, written for each place it goes: the site's
//! nginx `server` block, its Apache `<VirtualHost>`, and the `.htaccess` of its document
//! root. Each text starts with a comment saying where it goes.
//!
//! A rule is written so that it never touches what the site serves as it is:
//!
//! - files on disk are left alone (`-e` / `-f` / `-d` conditions) and a slash rule only
//!   touches URLs whose last segment has no file extension, so that static files,
//!   `robots.txt`, XML sitemaps and feeds keep their URLs;
//! - Apache's `RewriteRule` pattern matches the path with its leading slash in a
//!   VirtualHost and without it in `.htaccess`: the rules take the path from
//!   `%{REQUEST_URI}` (or the raw request line, `%{THE_REQUEST}`), which is the same in
//!   both, so that no redirect ever starts with `//`;
//! - a host match carries an optional port and the redirect keeps it;
//! - a rule that would redirect one of the site's own preferred URLs (a slash rule
//!   against the form the site's pages use, a lower-case rule on a site whose URLs have
//!   capitals, ...) is not offered, and the text says why.
//!
//! `tests/fix_servers.rs` loads every offered text into real nginx and Apache in front of
//! an application and requests the site's URLs and the variants through them.

use super::{VariantProbe, origin_and_host, path_of, regex_quote};
use crate::input::ProbeRule;
pub use crate::wording::server_rule_offered as offered;

/// The rule's text for each server (a text that only says why none is offered when it
/// cannot be written safely there).
pub(super) struct ServerRules {
    pub nginx: String,
    pub apache: String,
    pub htaccess: String,
}

const NGINX: &str = "# nginx: in the site's server block";
const NGINX_HTTP: &str = "# nginx: in the http block";
const VHOST: &str = "# Apache: in the site's <VirtualHost> (server configuration)";
const HTACCESS: &str = "# Apache: in the .htaccess of the document root, above the CMS's own rules";

/// Apache: the path as the request line sent it (still percent-encoded, as the site
/// wrote it) in `DUSTPAN_PATH`, for a redirect that keeps the path.
const REQUEST_PATH: &str =
    "RewriteCond %{THE_REQUEST} ^\\S+\\s([^?\\s]*)\nRewriteRule ^ - [E=DUSTPAN_PATH:%1]\n";

/// The tracking parameters the canonical rule covers (a regular expression).
const TRACKING: &str = "utm_[a-z_]+|gclid|fbclid|msclkid";
/// The session parameters the canonical rule covers.
const SESSION: &str = "sessionid|session_id|phpsessid|jsessionid|sid";

/// The texts of `rule`'s fix, for the site of `base`, whose own pages (served, the
/// preferred URL of their cluster) are `preferred`.
pub(super) fn server_rules(
    rule: ProbeRule,
    base: &str,
    probes: &[VariantProbe],
    preferred: &[String],
) -> ServerRules {
    let (scheme, authority, host) = origin_and_host(base);
    let port = authority.strip_prefix(&host).unwrap_or("").to_owned();
    match rule {
        ProbeRule::HostWww => host_www_rules(&host, preferred),
        ProbeRule::Scheme => scheme_rules(&scheme, &port, preferred),
        ProbeRule::TrailingSlash => trailing_slash(probes, preferred),
        ProbeRule::PathCase => path_case_rules(preferred),
        ProbeRule::IndexFile => index_file_rules(preferred),
        ProbeRule::DoubleSlash => double_slash_rules(preferred),
        ProbeRule::TrackingParam => {
            let only = only_params(TRACKING);
            if let Some(u) = conflict(preferred, &|u| {
                query_of(u).is_some_and(|q| matches_only(q, false))
            }) {
                return refuse(u, "has only tracking parameters");
            }
            canonical_header(
                &scheme,
                "tracking",
                &only,
                "when the query holds tracking parameters and nothing else",
                true,
            )
        }
        ProbeRule::SessionParam => {
            let only = only_params(SESSION);
            if let Some(u) = conflict(preferred, &|u| {
                query_of(u).is_some_and(|q| matches_only(q, true))
            }) {
                return refuse(u, "has only session parameters");
            }
            canonical_header(
                &scheme,
                "session",
                &only,
                "when the query holds session parameters and nothing else",
                true,
            )
        }
        ProbeRule::UnknownParam => unknown_param_rules(&scheme, preferred),
        ProbeRule::EmptyQuery => empty_query_rules(preferred),
        ProbeRule::IpHost => ip_host_rules(&scheme, &authority, preferred),
    }
}

/// The first of the site's own URLs (`preferred`) that `hit` matches: a URL a rule for
/// every URL would redirect away.
fn conflict(preferred: &[String], hit: &dyn Fn(&str) -> bool) -> Option<String> {
    preferred.iter().find(|u| hit(u)).cloned()
}

/// No rule, because the site's own `url` has the trait the rule would redirect away.
fn refuse(url: String, what: &str) -> ServerRules {
    not_offered(&format!(
        "the site's own URL {url} {what}, so a rule for every URL would redirect its \
         pages away; declare the canonical in the pages instead"
    ))
}

/// The `www.` twin of the site's host redirected to the host, on the same port.
fn host_www_rules(host: &str, preferred: &[String]) -> ServerRules {
    let twin = match host.strip_prefix("www.") {
        Some(bare) => bare.to_owned(),
        None => format!("www.{host}"),
    };
    if let Some(u) = conflict(preferred, &|u| {
        origin_and_host(u).2.eq_ignore_ascii_case(&twin)
    }) {
        return refuse(u, &format!("is on {twin} too"));
    }
    let pattern = format!("^{}(:[0-9]+)?$", regex_quote(&twin));
    let apache = format!(
        "# {twin} (on any port) to {host} on the same port\nRewriteEngine On\n\
         {REQUEST_PATH}RewriteCond %{{HTTP_HOST}} {pattern} [NC]\n\
         RewriteRule ^ %{{REQUEST_SCHEME}}://{host}%1%{{ENV:DUSTPAN_PATH}} [R=301,L,NE]"
    );
    ServerRules {
        nginx: format!(
            "{NGINX}\n# {twin} (on any port) to {host} on the same port\n\
             if ($http_host ~* \"{pattern}\") {{\n    \
             return 301 $scheme://{host}$1$request_uri;\n}}"
        ),
        apache: format!("{VHOST}\n{apache}"),
        htaccess: format!("{HTACCESS}\n{apache}"),
    }
}

/// The scheme the site does not use redirected to the one it does.
fn scheme_rules(scheme: &str, port: &str, preferred: &[String]) -> ServerRules {
    let other = if scheme == "http" { "https" } else { "http" };
    if let Some(u) = conflict(preferred, &|u| u.starts_with(&format!("{other}://"))) {
        return refuse(u, &format!("is served over {other} too"));
    }
    let (nginx_if, apache_if) = if scheme == "http" {
        ("$scheme = \"https\"", "RewriteCond %{HTTPS} on")
    } else {
        ("$scheme = \"http\"", "RewriteCond %{HTTPS} off")
    };
    let apache = format!(
        "# where Apache itself answers {other} (behind a proxy or CDN that does, \
         redirect there instead)\nRewriteEngine On\n{REQUEST_PATH}{apache_if}\n\
         RewriteCond %{{HTTP_HOST}} ^(\\[[0-9a-fA-F:.]+\\]|[^:]+)\n\
         RewriteRule ^ {scheme}://%1{port}%{{ENV:DUSTPAN_PATH}} [R=301,L,NE]"
    );
    ServerRules {
        nginx: format!(
            "{NGINX}\n# where nginx itself answers {other} (behind a proxy or CDN \
             that does, redirect there instead)\nif ({nginx_if}) {{\n    \
             return 301 {scheme}://$host{port}$request_uri;\n}}"
        ),
        apache: format!("{VHOST}\n{apache}"),
        htaccess: format!("{HTACCESS}\n{apache}"),
    }
}

/// Paths with capital letters redirected to lower case (files on disk excepted).
fn path_case_rules(preferred: &[String]) -> ServerRules {
    if let Some(u) = conflict(preferred, &|u| has_capital(path_of(u))) {
        return refuse(u, "has capital letters");
    }
    ServerRules {
        nginx: format!(
            "{NGINX_HTTP} (ngx_http_perl_module; Debian: libnginx-mod-http-perl)\n\
             perl_set $dustpan_lowercase_path 'sub {{ my $p = shift->variable(\"request_uri\"); $p =~ s/[?].*//s; return lc $p; }}';\n\
             {NGINX}\n# paths with capitals to lower case (files on disk excepted)\n\
             set $dustpan_case \"\";\nif ($uri ~ \"[A-Z]\") {{\n    set $dustpan_case \"upper\";\n}}\n\
             if (-e $request_filename) {{\n    set $dustpan_case \"\";\n}}\n\
             if ($dustpan_case) {{\n    \
             return 301 $scheme://$http_host$dustpan_lowercase_path$is_args$args;\n}}"
        ),
        apache: format!(
            "{VHOST}\n# paths with capitals to lower case (files on disk excepted)\n\
             RewriteEngine On\nRewriteMap lc int:tolower\n\
             RewriteCond %{{DOCUMENT_ROOT}}%{{REQUEST_URI}} !-f\n\
             RewriteCond %{{REQUEST_URI}} [A-Z]\n\
             RewriteRule ^ ${{lc:%{{REQUEST_URI}}}} [R=301,L]"
        ),
        htaccess: "# Not offered for .htaccess: RewriteMap, which lower-cases the path, \
                   is not allowed there; put the VirtualHost rule in the server \
                   configuration."
            .to_owned(),
    }
}

/// A directory's index file (`index.html`, `index.php`) redirected to the directory.
fn index_file_rules(preferred: &[String]) -> ServerRules {
    if let Some(u) = conflict(preferred, &|u| index_file(path_of(u))) {
        return refuse(u, "names its index file");
    }
    let apache = "RewriteEngine On\n\
                  RewriteCond %{THE_REQUEST} ^\\S+\\s([^?\\s]*/)index\\.(?:html?|php)[?\\s] [NC]\n\
                  RewriteRule ^ %1 [R=301,L,NE]";
    ServerRules {
        nginx: format!(
            "{NGINX}\nif ($request_uri ~* \"^([^?]*/)index\\.(?:html?|php)(\\?.*)?$\") {{\n    \
             return 301 $scheme://$http_host$1$2;\n}}"
        ),
        apache: format!("{VHOST}\n{apache}"),
        htaccess: format!("{HTACCESS}\n{apache}"),
    }
}

/// Paths with doubled slashes redirected to the merged path.
fn double_slash_rules(preferred: &[String]) -> ServerRules {
    if let Some(u) = conflict(preferred, &|u| path_of(u).contains("//")) {
        return refuse(u, "has a doubled slash");
    }
    let apache = "# one run of slashes merged per redirect\n\
                  RewriteEngine On\nRewriteCond %{THE_REQUEST} ^\\S+\\s([^?\\s]*?)//+([^?\\s]*)\n\
                  RewriteRule ^ %1/%2 [R=301,L,NE]";
    ServerRules {
        nginx: format!(
            "{NGINX}\n# merge_slashes on (the default) gives $uri single slashes; the URL \
             with a\n# doubled slash is still answered, so redirect it to the merged path:\n\
             if ($request_uri ~ \"^[^?]*//\") {{\n    rewrite ^(.*)$ $1 permanent;\n}}"
        ),
        apache: format!("{VHOST}\n{apache}"),
        htaccess: format!("{HTACCESS}\n{apache}"),
    }
}

/// A canonical header for queries holding none of the parameters the site's pages use.
fn unknown_param_rules(scheme: &str, preferred: &[String]) -> ServerRules {
    let mut names: Vec<String> = preferred
        .iter()
        .filter_map(|u| query_of(u))
        .flat_map(|q| q.split('&'))
        .map(|p| p.split('=').next().unwrap_or("").to_owned())
        .filter(|n| !n.is_empty())
        .collect();
    names.sort();
    names.dedup();
    if !names.is_empty() {
        // Code that reads some parameters reads others no link shows (a search box's
        // `s`, a page number, a post id): a rule naming the ones seen would declare a
        // search result or a page 2 the page without its query.
        return not_offered(&format!(
            "the site's own pages use query parameters ({}), so its code reads \
             parameters, and a server rule cannot tell the ones it reads but no link \
             shows (a search box, page numbers) from the ones it ignores; declare each \
             page's own URL canonical in the page template instead",
            names.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    let pattern = format!("^(?!(?:[^&]*&)*(?i:{TRACKING}|{SESSION})(?:[=&]|$)).");
    let when = "for any query without tracking or session parameters (none of the site's \
                pages uses a query parameter)";
    canonical_header(scheme, "unknown", &pattern, when, false)
}

/// An empty query (`?` and nothing after it) redirected away.
fn empty_query_rules(preferred: &[String]) -> ServerRules {
    if let Some(u) = conflict(preferred, &|u| u.ends_with('?')) {
        return refuse(u, "ends in an empty query");
    }
    let apache = "RewriteEngine On\nRewriteCond %{THE_REQUEST} ^\\S+\\s([^?\\s]*)\\?\\s\n\
                  RewriteRule ^ %1? [R=301,L,NE]";
    ServerRules {
        nginx: format!(
            "{NGINX}\nif ($request_uri ~ \"^([^?]*)\\?$\") {{\n    \
             return 301 $scheme://$http_host$1;\n}}"
        ),
        apache: format!("{VHOST}\n{apache}"),
        htaccess: format!("{HTACCESS}\n{apache}"),
    }
}

/// Requests to an IP address redirected to the site's host.
fn ip_host_rules(scheme: &str, authority: &str, preferred: &[String]) -> ServerRules {
    if let Some(u) = conflict(preferred, &|u| is_ip(&origin_and_host(u).2)) {
        return refuse(u, "is on an IP address");
    }
    let apache = format!(
        "RewriteEngine On\n{REQUEST_PATH}\
         RewriteCond %{{HTTP_HOST}} ^[0-9.]+(:[0-9]+)?$ [OR]\n\
         RewriteCond %{{HTTP_HOST}} ^\\[[0-9a-f:.]+\\](:[0-9]+)?$ [NC]\n\
         RewriteRule ^ {scheme}://{authority}%{{ENV:DUSTPAN_PATH}} [R=301,L,NE]"
    );
    ServerRules {
        nginx: format!(
            "{NGINX}\nif ($host ~ \"^(?:[0-9.]+|\\[[0-9a-f:.]+\\])$\") {{\n    \
             return 301 {scheme}://{authority}$request_uri;\n}}"
        ),
        apache: format!("{VHOST}\n{apache}"),
        htaccess: format!("{HTACCESS}\n{apache}"),
    }
}

/// The same reason for every server.
fn not_offered(why: &str) -> ServerRules {
    ServerRules {
        nginx: format!("# Not offered for nginx: {why}."),
        apache: format!("# Not offered for Apache: {why}."),
        htaccess: format!("# Not offered for .htaccess: {why}."),
    }
}

/// The trailing-slash rule, in the direction the site's own URLs use: a slash is added
/// when no page of the site has an extensionless URL without one, removed when no page
/// has a URL with one (the root aside); without either, as most probed pages are.
fn trailing_slash(probes: &[VariantProbe], preferred: &[String]) -> ServerRules {
    let paths = || {
        preferred
            .iter()
            .map(|u| (u, path_of(u)))
            .filter(|(_, p)| *p != "/")
    };
    let without = paths().find(|(_, p)| !p.ends_with('/') && !last_has_dot(p));
    let with = paths().find(|(_, p)| p.ends_with('/'));
    let add = match (with, without) {
        (Some((a, _)), Some((b, _))) => {
            return not_offered(&format!(
                "the site's own URLs use both forms ({a} and {b}), so a rule for every URL \
                 would redirect some of its pages away; declare the canonical in the pages \
                 instead"
            ));
        }
        (Some(_), None) => true,
        (None, Some(_)) => false,
        (None, None) => {
            probes
                .iter()
                .filter(|p| path_of(&p.base).ends_with('/'))
                .count()
                * 2
                > probes.len()
        }
    };
    if add {
        let rule = |exists: &str| {
            format!(
                "# URLs whose last segment has no file extension end in a slash (files on \
                 disk excepted)\nRewriteEngine On\nRewriteCond {exists} !-f\n\
                 RewriteCond %{{REQUEST_URI}} /[^/.]+$\n\
                 RewriteCond %{{THE_REQUEST}} ^\\S+\\s([^?\\s]*)\n\
                 RewriteRule ^ %1/ [R=301,L,NE]"
            )
        };
        ServerRules {
            nginx: format!(
                "{NGINX}\n# URLs whose last segment has no file extension end in a slash \
                 (files on disk excepted)\nif (!-e $request_filename) {{\n    \
                 rewrite \"^(.*/[^/.]+)$\" $1/ permanent;\n}}"
            ),
            apache: format!("{VHOST}\n{}", rule("%{DOCUMENT_ROOT}%{REQUEST_URI}")),
            htaccess: format!("{HTACCESS}\n{}", rule("%{REQUEST_FILENAME}")),
        }
    } else {
        let rule = |exists: &str| {
            format!(
                "# URLs end without a slash (the root and directories on disk excepted)\n\
                 RewriteEngine On\nRewriteCond {exists} !-d\n\
                 RewriteCond %{{REQUEST_URI}} ^/.*[^/]/+$\n\
                 RewriteCond %{{THE_REQUEST}} ^\\S+\\s([^?\\s]*?)/+(?:[?\\s])\n\
                 RewriteRule ^ %1 [R=301,L,NE]"
            )
        };
        ServerRules {
            nginx: format!(
                "{NGINX}\n# URLs end without a slash (the root and directories on disk \
                 excepted)\nif (!-d $request_filename) {{\n    \
                 rewrite \"^(.+)/$\" $1 permanent;\n}}"
            ),
            apache: format!("{VHOST}\n{}", rule("%{DOCUMENT_ROOT}%{REQUEST_URI}")),
            htaccess: format!("{HTACCESS}\n{}", rule("%{REQUEST_FILENAME}")),
        }
    }
}

/// A query made of the parameters `names` (a regular expression) and nothing else.
fn only_params(names: &str) -> String {
    format!("^(?:(?:{names})=[^&]*(?:&|$))+$")
}

/// Whether `query` is made of tracking (or session) parameters and nothing else.
fn matches_only(query: &str, session: bool) -> bool {
    !query.is_empty()
        && query.split('&').all(|p| {
            let name = p.split('=').next().unwrap_or("").to_ascii_lowercase();
            p.contains('=')
                && if session {
                    SESSION.split('|').any(|s| s == name)
                } else {
                    name.starts_with("utm_")
                        && name.len() > 4
                        && name[4..]
                            .chars()
                            .all(|c| c.is_ascii_lowercase() || c == '_')
                        || ["gclid", "fbclid", "msclkid"].contains(&name.as_str())
                }
        })
}

/// A `Link: <…>; rel="canonical"` header naming the URL without its query (the path as
/// the request sent it, on the host it asked for), for requests whose query matches
/// `pattern`.
fn canonical_header(
    scheme: &str,
    name: &str,
    pattern: &str,
    when: &str,
    nocase: bool,
) -> ServerRules {
    let var = format!("dustpan_link_{name}");
    let env = var.to_ascii_uppercase();
    let (op, flag) = if nocase { ("~*", " [NC]") } else { ("~", "") };
    let apache = format!(
        "# a canonical to the URL without the query, {when}\nRewriteEngine On\n\
         RewriteCond %{{QUERY_STRING}} {pattern}{flag}\n\
         RewriteCond %{{THE_REQUEST}} ^\\S+\\s([^?\\s]*)\n\
         RewriteRule ^ - [E={env}:{scheme}://%{{HTTP_HOST}}%1]\n\
         Header add Link \"<%{{{env}}}e>; rel=\\\"canonical\\\"\" env={env}"
    );
    ServerRules {
        nginx: format!(
            "{NGINX}\n# a canonical to the URL without the query, {when}\n\
             # (a location with add_header lines of its own needs this add_header too)\n\
             set ${var} \"\";\nif ($request_uri ~ \"^([^?]*)\") {{\n    set $dustpan_path $1;\n}}\n\
             if ($args {op} \"{pattern}\") {{\n    \
             set ${var} \"<{scheme}://$http_host$dustpan_path>; rel=\\\"canonical\\\"\";\n}}\n\
             add_header Link ${var};"
        ),
        apache: format!("{VHOST}\n{apache}"),
        htaccess: format!("{HTACCESS}\n{apache}"),
    }
}

/// A path's capital letters, percent-escapes aside (`%C3` is no capital).
fn has_capital(path: &str) -> bool {
    let b = path.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            i += 3;
            continue;
        }
        if b[i].is_ascii_uppercase() {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether a path's last segment is an index file (`index.html`, `index.php`).
fn index_file(path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or("").to_ascii_lowercase();
    matches!(last.as_str(), "index.htm" | "index.html" | "index.php")
}

/// Whether a path's last segment has a dot (a file extension).
fn last_has_dot(path: &str) -> bool {
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .is_some_and(|s| s.contains('.'))
}

/// The query of a URL, if it has one (`a=1`, or empty for a bare `?`).
fn query_of(url: &str) -> Option<&str> {
    let url = url.split('#').next().unwrap_or(url);
    url.split_once('?').map(|(_, q)| q)
}

/// Whether a host is an IP address.
fn is_ip(host: &str) -> bool {
    host.starts_with('[') || host.parse::<std::net::Ipv4Addr>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(base: &str) -> VariantProbe {
        VariantProbe {
            url: String::new(),
            base: base.to_owned(),
            verdict: super::super::ProbeVerdict::Duplicate,
            answer: String::new(),
            known: false,
            reach: 0,
        }
    }

    fn rules(rule: ProbeRule, base: &str, preferred: &[&str]) -> ServerRules {
        let preferred: Vec<String> = preferred.iter().map(|s| (*s).to_owned()).collect();
        server_rules(rule, base, &[probe(base)], &preferred)
    }

    #[test]
    fn each_text_says_where_it_goes() {
        let r = rules(ProbeRule::EmptyQuery, "https://example.test/a/", &[]);
        assert!(r.nginx.starts_with(NGINX), "{}", r.nginx);
        assert!(r.apache.starts_with(VHOST), "{}", r.apache);
        assert!(r.htaccess.starts_with(HTACCESS), "{}", r.htaccess);
        assert!(offered(&r.nginx) && offered(&r.apache) && offered(&r.htaccess));
        let case = rules(ProbeRule::PathCase, "https://example.test/a/", &[]);
        assert!(!offered(&case.htaccess), "{}", case.htaccess);
        assert!(
            case.htaccess
                .starts_with("# Not offered for .htaccess: RewriteMap")
        );
    }

    #[test]
    fn the_host_match_carries_the_port() {
        let r = rules(ProbeRule::HostWww, "https://example.test:8443/a", &[]);
        assert!(
            r.apache.contains(r"^www\.example\.test(:[0-9]+)?$ [NC]"),
            "{}",
            r.apache
        );
        assert!(
            r.apache.contains("://example.test%1%{ENV:DUSTPAN_PATH}"),
            "{}",
            r.apache
        );
        assert!(
            r.nginx
                .contains("return 301 $scheme://example.test$1$request_uri;")
        );
        let r = rules(ProbeRule::HostWww, "http://www.example.test/", &[]);
        assert!(
            r.nginx.contains(r#""^example\.test(:[0-9]+)?$""#),
            "{}",
            r.nginx
        );
    }

    #[test]
    fn a_rule_that_would_move_the_site_s_own_urls_is_not_offered() {
        let slash = "https://example.test/about/";
        let bare = "https://example.test/blog/post";
        // The slash follows the site's own form, whatever the probes' pages.
        let r = rules(
            ProbeRule::TrailingSlash,
            bare,
            &[slash, "https://example.test/robots.txt"],
        );
        assert!(r.nginx.contains("$1/ permanent"), "{}", r.nginx);
        let r = rules(ProbeRule::TrailingSlash, slash, &[bare]);
        assert!(r.nginx.contains("\"^(.+)/$\" $1 permanent"), "{}", r.nginx);
        let r = rules(ProbeRule::TrailingSlash, slash, &[slash, bare]);
        assert!(!offered(&r.nginx) && !offered(&r.apache) && !offered(&r.htaccess));
        assert!(
            r.nginx.contains(slash) && r.nginx.contains(bare),
            "{}",
            r.nginx
        );
        for (rule, own) in [
            (ProbeRule::PathCase, "https://example.test/wiki/Main_Page"),
            (ProbeRule::IndexFile, "https://example.test/w/index.php"),
            (ProbeRule::EmptyQuery, "https://example.test/a?"),
            (ProbeRule::HostWww, "https://www.example.test/"),
            (ProbeRule::IpHost, "https://127.0.0.1/"),
            (ProbeRule::Scheme, "http://example.test/"),
            (
                ProbeRule::TrackingParam,
                "https://example.test/?utm_source=x",
            ),
        ] {
            let r = rules(rule, "https://example.test/a", &[own]);
            assert!(!offered(&r.apache), "{rule:?}: {}", r.apache);
            assert!(r.apache.contains(own), "{rule:?}: {}", r.apache);
        }
        // Capitals in a percent-escape are no capitals.
        let r = rules(
            ProbeRule::PathCase,
            slash,
            &["https://example.test/caf%C3%A9"],
        );
        assert!(offered(&r.apache));
    }

    #[test]
    fn unknown_parameters_get_a_rule_only_where_no_page_uses_a_parameter() {
        // A site whose pages use parameters reads others no link shows (WordPress's
        // `?s=` search): no rule could tell them apart.
        let r = rules(
            ProbeRule::UnknownParam,
            "https://example.test/a",
            &["https://example.test/search?q=x&page=2"],
        );
        for text in [&r.nginx, &r.apache, &r.htaccess] {
            assert!(!offered(text), "{text}");
            assert!(text.contains("(page, q)"), "{text}");
        }
        // A static site: any query but tracking and session parameters.
        let r = rules(
            ProbeRule::UnknownParam,
            "https://example.test/a",
            &["https://example.test/b/"],
        );
        assert!(offered(&r.apache), "{}", r.apache);
        assert!(r.apache.contains("^(?!(?:[^&]*&)*(?i:utm_"), "{}", r.apache);
        assert!(matches_only("utm_source=a&utm_medium=b", false));
        assert!(!matches_only("utm_source=a&page=2", false));
        assert!(matches_only("sessionid=1", true));
    }
}
