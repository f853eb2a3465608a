//! Fix files: the redirect map (CSV, nginx, Apache), the canonical each page should
//! carry, and the sitemap lines to add and remove.

use crate::Analysis;
use crate::cluster::{Action, Role};
use crate::finding::Fix;
use crate::urlparts::split;
use canon::DEFAULT_DIRECTORY_INDEXES;
use percent_encoding::percent_decode_str;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// One redirect of the map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedirectLine {
    /// The URL to redirect.
    pub source: String,
    /// Where to (never itself a source: chains are collapsed).
    pub target: String,
    /// The status (301).
    pub status: u16,
}

/// The canonical one page should carry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CanonicalTag {
    /// The page.
    pub page: String,
    /// The URL its `<link rel="canonical">` should name.
    pub href: String,
    /// The page already declares exactly that.
    pub present: bool,
}

impl CanonicalTag {
    /// The HTML element, attribute-escaped.
    pub fn html(&self) -> String {
        format!(
            "<link rel=\"canonical\" href=\"{}\">",
            html_attr(&self.href)
        )
    }
}

/// One sitemap line to remove or replace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SitemapChange {
    /// The sitemap's URL.
    pub sitemap: String,
    /// The entry to remove.
    pub loc: String,
    /// What to list instead, if anything.
    pub with: Option<String>,
}

/// Everything a site owner can apply: the outputs of [`Analysis::fix_files`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixFiles {
    /// Every non-preferred URL that should redirect (or already does) → its cluster's
    /// preferred URL, plus the redirect fixes of findings; sorted by source.
    pub redirects: Vec<RedirectLine>,
    /// The canonical every 2xx member of a cluster (and every page a finding fixes)
    /// should carry; sorted by page.
    pub canonicals: Vec<CanonicalTag>,
    /// URLs to add to a sitemap.
    pub sitemap_add: Vec<String>,
    /// Sitemap entries to remove or replace.
    pub sitemap_remove: Vec<SitemapChange>,
}

impl FixFiles {
    /// Collects the fixes of an analysis.
    pub fn from_analysis(a: &Analysis) -> FixFiles {
        let mut redirects: FxHashMap<String, (String, u16)> = FxHashMap::default();
        let mut canonicals: FxHashMap<String, CanonicalTag> = FxHashMap::default();
        for c in &a.clusters {
            let serves = c.members.first().is_some_and(|m| {
                m.role == Role::Preferred && m.status.is_some_and(|s| (200..300).contains(&s))
            });
            if !serves {
                continue;
            }
            for m in &c.members {
                // Every member that should redirect, including those that already do
                // correctly: the map is complete, not a diff.
                if m.action == Action::Redirect301 || m.role == Role::Redirects {
                    redirects.insert(m.url.clone(), (c.preferred_url.clone(), 301));
                }
                if matches!(
                    m.role,
                    Role::Preferred | Role::Canonicalised | Role::Duplicate
                ) && m.action != Action::Redirect301
                {
                    canonicals.insert(
                        m.url.clone(),
                        CanonicalTag {
                            page: m.url.clone(),
                            href: c.preferred_url.clone(),
                            present: m.canonical == Some(c.preferred),
                        },
                    );
                }
            }
        }
        let mut add = Vec::new();
        let mut remove = Vec::new();
        for f in &a.findings {
            for fix in &f.fixes {
                match fix {
                    Fix::Redirect { from, to, status } => {
                        redirects
                            .entry(from.clone())
                            .or_insert((to.clone(), *status));
                    }
                    Fix::SetCanonical { page, href } => {
                        canonicals
                            .entry(page.clone())
                            .or_insert_with(|| CanonicalTag {
                                page: page.clone(),
                                href: href.clone(),
                                present: false,
                            });
                    }
                    Fix::SitemapAdd { loc } => add.push(loc.clone()),
                    Fix::SitemapRemove { sitemap, loc } => remove.push(SitemapChange {
                        sitemap: sitemap.clone(),
                        loc: loc.clone(),
                        with: None,
                    }),
                    Fix::SitemapReplace { sitemap, loc, with } => remove.push(SitemapChange {
                        sitemap: sitemap.clone(),
                        loc: loc.clone(),
                        with: Some(with.clone()),
                    }),
                    _ => {}
                }
            }
        }
        // Collapse chains inside the map; drop self-redirects and cycles.
        let sources: Vec<String> = redirects.keys().cloned().collect();
        let mut lines = Vec::with_capacity(sources.len());
        for source in sources {
            let (mut target, status) = redirects[&source].clone();
            let mut hops = 0;
            while let Some((next, _)) = redirects.get(&target) {
                hops += 1;
                if hops > 32 || *next == source {
                    break;
                }
                target = next.clone();
            }
            if target != source && hops <= 32 {
                lines.push(RedirectLine {
                    source,
                    target,
                    status,
                });
            }
        }
        lines.sort_by(|a, b| a.source.cmp(&b.source));
        let mut canonicals: Vec<CanonicalTag> = canonicals.into_values().collect();
        canonicals.sort_by(|a, b| a.page.cmp(&b.page));
        add.sort();
        add.dedup();
        remove.sort_by(|a, b| (&a.sitemap, &a.loc).cmp(&(&b.sitemap, &b.loc)));
        remove.dedup_by(|a, b| a.sitemap == b.sitemap && a.loc == b.loc);
        FixFiles {
            redirects: lines,
            canonicals,
            sitemap_add: add,
            sitemap_remove: remove,
        }
    }

    /// The redirect map as CSV: `source,target,status`.
    pub fn redirects_csv(&self) -> String {
        let mut out = String::from("source,target,status\n");
        for r in &self.redirects {
            let _ = writeln!(
                out,
                "{},{},{}",
                csv_field(&r.source),
                csv_field(&r.target),
                r.status
            );
        }
        out
    }

    /// The canonicals as CSV: `page,canonical,present`.
    pub fn canonicals_csv(&self) -> String {
        let mut out = String::from("page,canonical,present\n");
        for c in &self.canonicals {
            let _ = writeln!(
                out,
                "{},{},{}",
                csv_field(&c.page),
                csv_field(&c.href),
                c.present
            );
        }
        out
    }

    /// The sitemap changes as CSV: `action,sitemap,loc,replacement`.
    pub fn sitemap_csv(&self) -> String {
        let mut out = String::from("action,sitemap,loc,replacement\n");
        for a in &self.sitemap_add {
            let _ = writeln!(out, "add,,{},", csv_field(a));
        }
        for r in &self.sitemap_remove {
            let (action, with) = match &r.with {
                Some(w) => ("replace", csv_field(w)),
                None => ("remove", String::new()),
            };
            let _ = writeln!(
                out,
                "{action},{},{},{with}",
                csv_field(&r.sitemap),
                csv_field(&r.loc)
            );
        }
        out
    }

    /// The redirect map for nginx.
    ///
    /// Plain paths become `location = /path { return 301 https://...; }` lines, grouped by
    /// the origin whose `server {}` they belong in. Sources that `location` cannot match
    /// exactly (a query string; escapes, `//` or dot segments, which nginx normalizes
    /// before matching; unusual characters; directory index files, which nginx reaches
    /// by internal redirect and would loop) go through a `map` on the full requested URL.
    pub fn nginx(&self) -> String {
        let mut out = format!(
            "# Dustpan redirect map: {} redirects.\n",
            self.redirects.len()
        );
        let mut mapped = Vec::new();
        let mut origin = "";
        for r in &self.redirects {
            let p = split(&r.source);
            let origin_of = &r.source[..p.origin_end];
            if p.query.is_some() || !nginx_location_safe(p.path) {
                mapped.push(r);
                continue;
            }
            if origin_of != origin {
                origin = origin_of;
                let _ = writeln!(out, "\n# server {{}} of {origin}");
            }
            let _ = writeln!(
                out,
                "location = {} {{ return {} {}; }}",
                p.path,
                r.status,
                nginx_target(&r.target)
            );
        }
        if !mapped.is_empty() {
            out.push_str(
                "\n# Sources matched on the full requested URL. Put the map in http {} and the if in\n\
                 # each server {} that serves one of these hosts.\n\
                 map $scheme://$host$request_uri $dustpan_redirect {\n    default \"\";\n",
            );
            for r in &mapped {
                let _ = writeln!(
                    out,
                    "    \"{}\" \"{}\";",
                    nginx_quote(&r.source),
                    nginx_quote(&nginx_target(&r.target))
                );
            }
            out.push_str("}\nif ($dustpan_redirect) { return 301 $dustpan_redirect; }\n");
        }
        out
    }

    /// The redirect map for Apache (server config or `.htaccess`).
    ///
    /// Plain paths become `RedirectMatch 301 "^/path$" "https://..."`: anchored, because
    /// `Redirect` matches prefixes and would also redirect everything below the path.
    /// Sources with a query string, or that Apache reaches by internal redirect
    /// (directory index files), become mod_rewrite rules matched on the host and the
    /// raw request line.
    pub fn apache(&self) -> String {
        let mut out = format!(
            "# Dustpan redirect map: {} redirects (mod_alias, mod_rewrite).\n",
            self.redirects.len()
        );
        let mut origin = "";
        let mut rewrite_on = false;
        for r in &self.redirects {
            let p = split(&r.source);
            let origin_of = &r.source[..p.origin_end];
            if origin_of != origin {
                origin = origin_of;
                rewrite_on = false;
                let _ = writeln!(out, "\n# <VirtualHost> of {origin}");
            }
            let decoded = percent_decode_str(p.path).decode_utf8();
            let plain = p.query.is_none()
                && !is_index_path(p.path)
                && decoded
                    .as_ref()
                    .is_ok_and(|d| !d.contains(['\0', '\n', '\r']));
            if let (true, Ok(path)) = (plain, &decoded) {
                let _ = writeln!(
                    out,
                    "RedirectMatch {} \"^{}$\" \"{}\"",
                    r.status,
                    apache_quote(&regex_escape(path)),
                    apache_quote(&apache_subst(&r.target, false))
                );
                continue;
            }
            if !rewrite_on {
                out.push_str("RewriteEngine On\n");
                rewrite_on = true;
            }
            let request_target = &r.source[p.origin_end..];
            let request_target = request_target.split('#').next().unwrap_or(request_target);
            let _ = writeln!(
                out,
                "RewriteCond %{{HTTP_HOST}} \"={}\" [NC]",
                apache_quote(p.host)
            );
            let _ = writeln!(
                out,
                "RewriteCond %{{THE_REQUEST}} \"^[A-Z]+\\s{}\\s\"",
                apache_quote(&regex_escape(request_target))
            );
            let qsd = if split(&r.target).query.is_some() {
                ""
            } else {
                ",QSD"
            };
            let _ = writeln!(
                out,
                "RewriteRule ^ \"{}\" [R={},L,NE{qsd}]",
                apache_quote(&apache_subst(&r.target, true)),
                r.status
            );
        }
        out
    }
}

fn csv_field(s: &str) -> String {
    let s = &*crate::export::spreadsheet_safe(s);
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

fn html_attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn is_index_path(path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or("");
    DEFAULT_DIRECTORY_INDEXES
        .iter()
        .any(|d| d.eq_ignore_ascii_case(last))
}

/// Whether `location = {path}` matches exactly the requests for this raw path.
fn nginx_location_safe(path: &str) -> bool {
    path.starts_with('/')
        && !path.contains("//")
        && !path.split('/').any(|s| s == "." || s == "..")
        && !is_index_path(path)
        && path
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~/!*'(),:@&=+".contains(&b))
}

/// A redirect target for nginx: `$` would start a variable, so it is percent-encoded.
fn nginx_target(url: &str) -> String {
    url.replace('$', "%24")
}

fn nginx_quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn apache_quote(s: &str) -> String {
    s.replace('"', "\\\"")
}

/// A substitution for RedirectMatch (`$` is a back-reference) or RewriteRule (`$` and
/// `%` are), escaped with backslashes.
fn apache_subst(url: &str, rewrite: bool) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        if c == '$' || (rewrite && c == '%') || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Escapes regex metacharacters (PCRE).
fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if "\\.^$|?*+()[]{} ".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
