//! Fix files: the redirect map (CSV, and as configuration for nginx, Apache, Netlify,
//! Vercel, Cloudflare Bulk Redirects and the WordPress Redirection plugin), the canonical
//! each page should carry, and the sitemap lines to add and remove.
//!
//! Redirect sources and targets come from crawled sites and may hold any byte: every
//! generator writes each URL percent-encoded where a request line cannot carry it
//! (controls, whitespace, `"`, `<`, `>`, `` ` ``, non-ASCII), then quoted or escaped for
//! its format, and leaves out (with a comment where the format has comments) a redirect
//! it cannot express exactly.

use crate::analysis::{Analysis, SiteRedirect};
use crate::cluster::{Action, Role};
use crate::finding::Fix;
use crate::urlparts::split;
use canon::DEFAULT_DIRECTORY_INDEXES;
use percent_encoding::percent_decode_str;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
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
    /// What the site answers at `source` today, when it redirects.
    #[serde(default)]
    pub today: Option<SiteRedirect>,
}

impl RedirectLine {
    /// Whether the redirect is new, changes one the site answers, or is already there.
    pub fn state(&self) -> RedirectState {
        match &self.today {
            None => RedirectState::New,
            Some(t) if t.to == self.target && t.status == self.status => RedirectState::Existing,
            Some(t) if t.to == self.target && matches!((t.status, self.status), (308, 301)) => {
                RedirectState::Existing
            }
            Some(_) => RedirectState::Changed,
        }
    }
}

/// How a redirect of the map compares with what the site answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedirectState {
    /// The site does not redirect the source today.
    New,
    /// The site redirects it elsewhere, through a chain, or with a temporary status.
    Changed,
    /// The site already answers exactly this permanent redirect.
    Existing,
}

impl RedirectState {
    /// `new`, `changed`, `existing`.
    pub fn as_str(self) -> &'static str {
        match self {
            RedirectState::New => "new",
            RedirectState::Changed => "changed",
            RedirectState::Existing => "existing",
        }
    }
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

/// One sitemap line to add, remove or replace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SitemapChange {
    /// The sitemap's URL.
    pub sitemap: String,
    /// The entry to add or remove.
    pub loc: String,
    /// What to list instead, if anything.
    pub with: Option<String>,
}

/// Everything a site owner can apply: the outputs of [`Analysis::fix_files`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixFiles {
    /// Every non-preferred URL that should redirect (or already does) → its cluster's
    /// preferred URL, plus the redirect fixes of findings; sorted by source. The CSV
    /// holds them all, each marked new, changed or existing.
    pub redirects: Vec<RedirectLine>,
    /// The server files (nginx, Apache, Netlify, Vercel, Cloudflare, WordPress) also
    /// write the redirects the site already answers; by default they hold only what must
    /// change.
    #[serde(default)]
    pub include_existing: bool,
    /// The canonical every 2xx member of a cluster still in the index (and every page a finding fixes)
    /// should carry; sorted by page.
    pub canonicals: Vec<CanonicalTag>,
    /// URLs to add to a sitemap: `with` is `None` and `sitemap` the sitemap that lists
    /// pages like it.
    pub sitemap_add: Vec<SitemapChange>,
    /// Sitemap entries to remove or replace.
    pub sitemap_remove: Vec<SitemapChange>,
}

impl Analysis {
    /// The fix files (redirect map, canonicals, sitemap lines).
    pub fn fix_files(&self) -> FixFiles {
        FixFiles::from_analysis(self)
    }
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
                // A duplicate left as it is (it is out of the index already: noindex)
                // gets no canonical: a canonical beside noindex is a mixed signal, and
                // one naming a preferred URL that is itself noindex is CANON-TO-NOINDEX.
                let left_as_is = m.role == Role::Duplicate && m.action == Action::None;
                if matches!(
                    m.role,
                    Role::Preferred | Role::Canonicalised | Role::Duplicate
                ) && m.action != Action::Redirect301
                    && !left_as_is
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
                    Fix::SelfCanonicalForPattern { pages, .. } => {
                        for page in pages {
                            canonicals
                                .entry(page.clone())
                                .or_insert_with(|| CanonicalTag {
                                    page: page.clone(),
                                    href: page.clone(),
                                    present: false,
                                });
                        }
                    }
                    Fix::SitemapAdd { loc, sitemap } => add.push(SitemapChange {
                        sitemap: sitemap.clone(),
                        loc: loc.clone(),
                        with: None,
                    }),
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
                let today = a
                    .live_redirects
                    .binary_search_by(|r| r.source.as_str().cmp(&source))
                    .ok()
                    .map(|at| a.live_redirects[at].clone());
                lines.push(RedirectLine {
                    source,
                    target,
                    status,
                    today,
                });
            }
        }
        lines.sort_by(|a, b| a.source.cmp(&b.source));
        let mut canonicals: Vec<CanonicalTag> = canonicals.into_values().collect();
        canonicals.sort_by(|a, b| a.page.cmp(&b.page));
        add.sort_by(|a, b| (&a.sitemap, &a.loc).cmp(&(&b.sitemap, &b.loc)));
        add.dedup_by(|a, b| a.loc == b.loc);
        remove.sort_by(|a, b| (&a.sitemap, &a.loc).cmp(&(&b.sitemap, &b.loc)));
        remove.dedup_by(|a, b| a.sitemap == b.sitemap && a.loc == b.loc);
        FixFiles {
            include_existing: false,
            redirects: lines,
            canonicals,
            sitemap_add: add,
            sitemap_remove: remove,
        }
    }

    /// The redirect map as CSV and as every server's file: `(file name, contents)`.
    pub fn redirect_files(&self) -> Vec<(&'static str, String)> {
        vec![
            ("redirect_map.csv", self.redirects_csv()),
            ("redirects.nginx.conf", self.nginx()),
            ("redirects.apache.conf", self.apache()),
            ("_redirects", self.netlify()),
            ("vercel.json", self.vercel()),
            ("redirects.cloudflare.csv", self.cloudflare_csv()),
            ("redirects.wordpress.csv", self.wordpress_csv()),
        ]
    }

    /// The redirect map as CSV: `source,target,status,change,site_status,site_target`:
    /// every redirect, with whether it is new, changes what the site answers (and what
    /// that is), or already exists.
    pub fn redirects_csv(&self) -> String {
        let mut out = String::from("source,target,status,change,site_status,site_target\n");
        for r in &self.redirects {
            let (site_status, site_target) = match &r.today {
                Some(t) => (t.status.to_string(), csv_field(&t.to)),
                None => (String::new(), String::new()),
            };
            let _ = writeln!(
                out,
                "{},{},{},{},{site_status},{site_target}",
                csv_field(&r.source),
                csv_field(&r.target),
                r.status,
                r.state().as_str()
            );
        }
        out
    }

    /// The redirects the server files write: those that are new or change what the site
    /// answers, and the existing ones too with [`FixFiles::include_existing`].
    pub fn to_write(&self) -> impl Iterator<Item = &RedirectLine> {
        self.redirects
            .iter()
            .filter(|r| self.include_existing || r.state() != RedirectState::Existing)
    }

    /// The header line of a server file: how many redirects it writes, and how many the
    /// site already answers that it leaves out.
    fn counts_line(&self, server: &str) -> String {
        let written = self.to_write().count();
        let existing = self
            .redirects
            .iter()
            .filter(|r| r.state() == RedirectState::Existing)
            .count();
        let mut line = format!(
            "# Dustpan redirect map for {server}: {written} redirect{}.\n",
            if written == 1 { "" } else { "s" }
        );
        if existing > 0 && !self.include_existing {
            let _ = writeln!(
                line,
                "# {existing} redirect{} the site already answers {} left out (redirect_map.csv lists {}).",
                if existing == 1 { "" } else { "s" },
                if existing == 1 { "is" } else { "are" },
                if existing == 1 { "it" } else { "them" }
            );
        } else if existing > 0 {
            let _ = writeln!(
                line,
                "# {existing} of them the site already answers: kept so this file is the whole map."
            );
        }
        line
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
            let _ = writeln!(out, "add,{},{},", csv_field(&a.sitemap), csv_field(&a.loc));
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

    /// The redirect map for nginx: a file for `http {}`.
    ///
    /// Every redirect is one entry of a `map` on `$scheme://$host$request_uri` (the raw
    /// request target, exact, so a query string must match too). A source with no query
    /// string and a plain path (no escapes, `//`, dot segments, unusual characters or
    /// directory index file; not the site root or a script, whose pages are chosen by
    /// the query string) goes in a second map on `$scheme://$host$uri`, the path
    /// nginx has normalized, and so matches with any query string, like
    /// `location = /path`; unless its target has the same path, which would loop. `$host`
    /// has no port, so the redirects answer on any port. nginx compares map strings
    /// without regard to case, so each entry carries its exact source and a chained map
    /// checks it (case-sensitively); sources that differ only in case, or hold a `$`
    /// (which nginx would read as a variable in a value), are regular expressions with
    /// every special character escaped. Values are quoted strings with `\` and `"`
    /// escaped; a `$` in a target is written `%24`, as nginx has no escape for it.
    pub fn nginx(&self) -> String {
        let mut out = self.counts_line("nginx");
        let mut notes = String::new();
        let mut by_request: Vec<NginxEntry> = Vec::new();
        let mut by_path: Vec<NginxEntry> = Vec::new();
        let mut seen: FxHashSet<(bool, String)> = FxHashSet::default();
        let mut statuses = BTreeSet::from([301]);
        for r in self.to_write() {
            let l = match Line::new(r) {
                Ok(l) => l,
                Err(why) => {
                    note(&mut notes, r, why);
                    continue;
                }
            };
            let key = l.src.key();
            if key == l.tgt.key() {
                note(&mut notes, r, "only the port differs from the target");
                continue;
            }
            if key.len() > MAX_SOURCE {
                note(&mut notes, r, "longer than nginx matches");
                continue;
            }
            let plain = l.src.query.is_none()
                && !dispatches_on_query(&l.src.path)
                && nginx_location_safe(&l.src.path)
                && !l.src.same_path(&l.tgt);
            if !seen.insert((plain, key.clone())) {
                note(&mut notes, r, "the same source on another port comes first");
                continue;
            }
            statuses.insert(l.status);
            let e = NginxEntry {
                key,
                status: l.status,
                target: l.target.replace('$', "%24"),
            };
            if plain {
                by_path.push(e);
            } else {
                by_request.push(e);
            }
        }
        out.push_str(
            "#\n\
             # Include this file in http {}, then add to each server {} that serves one of these\n\
             # sites:\n",
        );
        for s in &statuses {
            let _ = writeln!(
                out,
                "#     if ($dustpan_redirect_{s}) {{ return {s} $dustpan_redirect_{s}; }}"
            );
        }
        out.push_str(
            "#\n\
             # Sources match exactly and case-sensitively on $scheme://$host$request_uri, on any\n\
             # port; a source with a plain path and no query string matches on the normalized\n\
             # path ($uri) with any query string (not the site root or a script such as\n\
             # index.php, whose pages the query string chooses). The target gets no query\n\
             # string but its own.\n\
             # Values are quoted; a $ in a target is written %24 (nginx has no escape for it).\n",
        );
        // nginx refuses a map whose longest key does not fit in a hash bucket, and warns
        // when no hash of at most map_hash_max_size buckets keeps every bucket within
        // map_hash_bucket_size: room for a few of the longest keys in a bucket, and twice
        // as many buckets as keys, let it find one.
        let longest = by_request
            .iter()
            .chain(&by_path)
            .map(|e| 8 + (e.key.len() + 2).div_ceil(8) * 8)
            .max()
            .unwrap_or(0);
        if 8 + longest > 64 {
            let _ = writeln!(
                out,
                "map_hash_bucket_size {};",
                (8 + 4 * longest).div_ceil(64) * 64
            );
        }
        let keys = by_request.len().max(by_path.len());
        if keys > 1024 {
            let _ = writeln!(out, "map_hash_max_size {};", (keys * 2).next_power_of_two());
        }
        nginx_map(
            &mut out,
            "$scheme://$host$request_uri",
            "dustpan_request",
            &by_request,
        );
        nginx_map(&mut out, "$scheme://$host$uri", "dustpan_path", &by_path);
        out.push_str(
            "map \"$dustpan_request $scheme://$host$request_uri\" $dustpan_match {\n    \
             default $dustpan_path_match;\n    \"~^(\\d+) (\\S+) (\\S+) \\2\\z\" \"$1 $3\";\n}\n\
             map \"$dustpan_path $scheme://$host$uri\" $dustpan_path_match {\n    \
             default \"\";\n    \"~^(\\d+) (\\S+) (\\S+) \\2\\z\" \"$1 $3\";\n}\n",
        );
        for s in &statuses {
            let _ = writeln!(
                out,
                "map $dustpan_match $dustpan_redirect_{s} {{\n    default \"\";\n    \"~^{s} (\\S+)\\z\" $1;\n}}"
            );
        }
        if !notes.is_empty() {
            out.push_str("\n# Not written:\n");
            out.push_str(&notes);
        }
        out
    }

    /// The redirect map for Apache httpd 2.4 (mod_rewrite): a file to include in each
    /// `<VirtualHost>` that serves one of these sites, or an `.htaccess` at the document
    /// root.
    ///
    /// One rule per redirect: `HTTPS` on or off for the source's scheme, `HTTP_HOST`
    /// against the host with any port (any letter case, an optional final dot), and the
    /// raw request target of the request line (`THE_REQUEST`), exactly; a source with a
    /// plain path and no query string matches with any query string, except the site root
    /// and scripts (as in [`FixFiles::nginx`]). Patterns are unquoted regular expressions with every special
    /// character escaped (`"`, `'` and `\` as `\xHH`); the substitution is quoted with `\`,
    /// `$` and `%` escaped, `NE` keeps its percent-encoding and `QSD` drops the request's
    /// query string.
    pub fn apache(&self) -> String {
        let mut out = self.counts_line("Apache httpd (mod_rewrite)");
        out.push_str(
            "#\n\
             # Include this file in each <VirtualHost> that serves one of these sites (or put it\n\
             # in the .htaccess of the document root). Sources match on the scheme, the host\n\
             # with any port, and exactly, case-sensitively, on the request target of the\n\
             # request line; a source with a plain path and no query string matches with any\n\
             # query string (not the site root or a script such as index.php, whose pages the\n\
             # query string chooses). The target gets no query string but its own.\n",
        );
        let mut notes = String::new();
        let mut rules = String::new();
        let mut seen: FxHashSet<(bool, String)> = FxHashSet::default();
        for r in self.to_write() {
            let l = match Line::new(r) {
                Ok(l) => l,
                Err(why) => {
                    note(&mut notes, r, why);
                    continue;
                }
            };
            let key = l.src.key();
            if key == l.tgt.key() {
                note(&mut notes, r, "only the port differs from the target");
                continue;
            }
            if key.len() > MAX_SOURCE {
                note(&mut notes, r, "longer than a request line");
                continue;
            }
            let any_query = l.src.query.is_none()
                && !dispatches_on_query(&l.src.path)
                && nginx_location_safe(&l.src.path)
                && !l.src.same_path(&l.tgt);
            if !seen.insert((any_query, key)) {
                note(&mut notes, r, "the same source on another port comes first");
                continue;
            }
            let query = match &l.src.query {
                Some(q) => format!("\\?{}", pcre_escape(q)),
                None if any_query => "(?:\\?\\S*)?".to_owned(),
                None => String::new(),
            };
            let _ = writeln!(
                rules,
                "RewriteCond %{{HTTPS}} {}\n\
                 RewriteCond %{{HTTP_HOST}} ^{}\\.?(?::[0-9]+)?$ [NC]\n\
                 RewriteCond %{{THE_REQUEST}} ^\\S+\\s{}{query}(?:\\s|$)\n\
                 RewriteRule ^ \"{}\" [R={},L,NE,QSD]",
                if l.src.scheme == "https" {
                    "=on"
                } else {
                    "!=on"
                },
                pcre_escape(&l.src.host),
                pcre_escape(&l.src.path),
                apache_subst(&l.target),
                l.status
            );
        }
        if !rules.is_empty() {
            out.push_str("RewriteEngine On\n");
            out.push_str(&rules);
        }
        if !notes.is_empty() {
            out.push_str("\n# Not written:\n");
            out.push_str(&notes);
        }
        out
    }

    /// The redirect map for Netlify: a `_redirects` file.
    ///
    /// One `FROM TO STATUS!` line per redirect, forced (`!`) because the duplicate URLs
    /// still serve content. Netlify matches the decoded path, so `FROM` is the source's
    /// path decoded; it is a path when the source is on its target's host, and the
    /// source URL (scheme, host, path) when it is on another host. `TO` is a path when the
    /// target stays on the source's origin, else the target URL. Netlify matches query
    /// strings only loosely, and treats `*` and `/:name` as patterns, so such sources are
    /// left out (as are paths with whitespace or that are not UTF-8), listed as comments.
    pub fn netlify(&self) -> String {
        let mut out = self.counts_line("Netlify (_redirects)");
        out.push_str(
            "# Put this file in the publish directory (or add its lines to your _redirects).\n\
             # FROM is the decoded path (with the scheme and host when the source is on another\n\
             # host than its target), TO a path or URL, and the status is forced (!).\n",
        );
        let mut notes = String::new();
        let mut rules = String::new();
        let mut seen: FxHashSet<String> = FxHashSet::default();
        for r in self.to_write() {
            let l = match Line::new(r) {
                Ok(l) => l,
                Err(why) => {
                    note(&mut notes, r, why);
                    continue;
                }
            };
            if l.src.query.is_some() {
                note(&mut notes, r, "Netlify matches query strings only loosely");
                continue;
            }
            let Some(path) = netlify_path(&l.src.path) else {
                note(&mut notes, r, "its path cannot be written in _redirects");
                continue;
            };
            let same_host = l.src.host == l.tgt.host;
            if same_host && netlify_path(&l.tgt.path).as_deref() == Some(path.as_str()) {
                note(&mut notes, r, "only the scheme, port or query differs");
                continue;
            }
            let from = if same_host {
                path
            } else {
                format!("{}://{}{}", l.src.scheme, l.src.host, path)
            };
            if !seen.insert(from.clone()) {
                note(
                    &mut notes,
                    r,
                    "the same path on another scheme or port comes first",
                );
                continue;
            }
            let to = if l.src.same_origin(&l.tgt) && !l.target.contains('#') {
                l.tgt.path_and_query()
            } else {
                l.target.clone()
            };
            let _ = writeln!(rules, "{from} {to} {}!", l.status);
        }
        out.push_str(&rules);
        if !notes.is_empty() {
            out.push_str("\n# Not written:\n");
            out.push_str(&notes);
        }
        out
    }

    /// The redirect map for Vercel: a `vercel.json` holding only `redirects` (merge it
    /// into yours).
    ///
    /// Each redirect has its path as `source`, with the characters that Vercel's path
    /// patterns give a meaning (`:`, `(`, `)`, `{`, `}`, `*`, `+`, `?`, `\`) escaped with a
    /// backslash, the host as a `has` condition (an exact `eq`, so no pattern either), the
    /// target as `destination` (with `$`, `:`, `(` and `)` after the host, which Vercel
    /// reads as references to the source's patterns, percent-encoded), and `permanent`
    /// (Vercel's permanent redirect is a 308).
    /// Vercel matches paths only, serves HTTPS only and takes at most 2,048 redirects, so
    /// sources with a query string, redirects that only change the scheme or port, and
    /// redirects past the 2,048th are left out.
    pub fn vercel(&self) -> String {
        let mut entries = Vec::new();
        let mut seen: FxHashSet<(String, String)> = FxHashSet::default();
        for r in self.to_write() {
            let Ok(l) = Line::new(r) else { continue };
            if l.src.query.is_some()
                || (l.src.host == l.tgt.host && l.src.path == l.tgt.path)
                || l.src.path.len() > VERCEL_MAX
                || l.target.len() > VERCEL_MAX
                || entries.len() == VERCEL_MAX_REDIRECTS
                || !seen.insert((l.src.host.clone(), l.src.path.clone()))
            {
                continue;
            }
            entries.push(format!(
                "    {{\n      \"source\": {},\n      \"has\": [{{ \"type\": \"host\", \"value\": {{ \"eq\": {} }} }}],\n      \"destination\": {},\n      \"permanent\": {}\n    }}",
                json_string(&path_pattern_escape(&l.src.path)),
                json_string(&l.src.host),
                json_string(&vercel_destination(&l.target)),
                matches!(l.status, 301 | 308)
            ));
        }
        if entries.is_empty() {
            return "{\n  \"redirects\": []\n}\n".to_owned();
        }
        format!("{{\n  \"redirects\": [\n{}\n  ]\n}}\n", entries.join(",\n"))
    }

    /// The redirect map as a Cloudflare Bulk Redirect List CSV: no header row, and the
    /// columns source URL, target URL, status, preserve query string, include
    /// subdomains, subpath matching, preserve path suffix (all four `false`).
    ///
    /// The source URL is the scheme, host and path, with `{` and `}` percent-encoded as
    /// a browser sends them (Cloudflare matches neither a port nor a query string, so
    /// sources with a query string, and redirects that only change the port or query, are
    /// left out; so are URLs with a `\`, which URL parsers turn into `/`).
    pub fn cloudflare_csv(&self) -> String {
        let mut out = String::new();
        let mut seen: FxHashSet<String> = FxHashSet::default();
        for r in self.to_write() {
            let Ok(l) = Line::new(r) else { continue };
            let path = l.src.path.replace('{', "%7B").replace('}', "%7D");
            let source = format!("{}://{}{path}", l.src.scheme, l.src.host);
            if l.src.query.is_some()
                || source.contains('\\')
                || l.target.contains('\\')
                || (l.src.scheme == l.tgt.scheme && l.src.same_path(&l.tgt))
                || source.len() > CLOUDFLARE_MAX
                || l.target.len() > CLOUDFLARE_MAX
                || !seen.insert(source.clone())
            {
                continue;
            }
            let status = if l.status == 303 { 302 } else { l.status };
            let _ = writeln!(
                out,
                "{},{},{status},false,false,false,false",
                csv_quote(&source),
                csv_quote(&l.target)
            );
        }
        out
    }

    /// The redirect map for the WordPress Redirection plugin's CSV import: the plugin's
    /// own export columns (`source,target,regex,code,type,hits,title,status`), of which
    /// it imports the first four.
    ///
    /// The source is the path and query string when the source is on its target's host;
    /// else the source URL without its query string (the plugin makes it a match on the
    /// host), so such sources with a query string are left out. The plugin decodes and
    /// cleans sources, and by default ignores letter case and a trailing slash, so
    /// sources it would change, and redirects that differ from their target only that
    /// way (they would loop), are left out.
    pub fn wordpress_csv(&self) -> String {
        let mut out = String::from("source,target,regex,code,type,hits,title,status\n");
        let mut seen: FxHashSet<String> = FxHashSet::default();
        for r in self.to_write() {
            let Ok(l) = Line::new(r) else { continue };
            let same_host = l.src.host == l.tgt.host;
            let source = if same_host {
                l.src.path_and_query()
            } else if l.src.query.is_none() {
                format!("{}://{}{}", l.src.scheme, l.src.host, l.src.path)
            } else {
                continue;
            };
            let (Some(src), Some(tgt)) = (wordpress_field(&source), wordpress_field(&l.target))
            else {
                continue;
            };
            if (same_host && wordpress_loops(&l.src, &l.tgt))
                || src.len() + tgt.len() > WORDPRESS_MAX_LINE
                || !seen.insert(source)
            {
                continue;
            }
            let _ = writeln!(out, "{src},{tgt},0,{},url,0,,active", l.status);
        }
        out
    }
}

/// The longest source the nginx and Apache files write (a request line is at most 8 KiB).
const MAX_SOURCE: usize = 8000;
/// Vercel's limits: characters of a `source` or `destination`, and redirects.
const VERCEL_MAX: usize = 4096;
const VERCEL_MAX_REDIRECTS: usize = 2048;
/// Cloudflare's limit on a source or target URL (32 KB).
const CLOUDFLARE_MAX: usize = 32 * 1024;
/// The Redirection plugin reads lines of at most 5,000 characters.
const WORDPRESS_MAX_LINE: usize = 4900;

/// A redirect line, checked and percent-encoded for the server files.
struct Line {
    /// The status: 301, 302, 303, 307 or 308 (anything else is written as 301).
    status: u16,
    src: WebUrl,
    tgt: WebUrl,
    /// The target with its scheme in lower case and percent-encoded where a request line
    /// or header cannot carry it: what the redirect's `Location` says.
    target: String,
}

impl Line {
    fn new(r: &RedirectLine) -> Result<Line, &'static str> {
        let src = WebUrl::parse(&r.source).ok_or("the source is not an http(s) URL")?;
        let tgt = WebUrl::parse(&r.target).ok_or("the target is not an http(s) URL")?;
        let scheme_len = r.target.find("://").unwrap_or(0);
        let target = format!("{}{}", tgt.scheme, web_encode(&r.target[scheme_len..]));
        let status = if matches!(r.status, 301 | 302 | 303 | 307 | 308) {
            r.status
        } else {
            301
        };
        Ok(Line {
            status,
            src,
            tgt,
            target,
        })
    }
}

/// An absolute http(s) URL in the parts the fix files match on, percent-encoded as a
/// request line carries it.
struct WebUrl {
    /// `http` or `https`.
    scheme: String,
    /// Lower case.
    host: String,
    /// `:8080`, or empty.
    port: String,
    /// Starts with `/`.
    path: String,
    query: Option<String>,
}

impl WebUrl {
    fn parse(url: &str) -> Option<WebUrl> {
        let p = split(url);
        let scheme = p.scheme.to_ascii_lowercase();
        let port = p.port.strip_prefix(':').unwrap_or(p.port);
        let port_ok = port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit());
        if !(scheme == "http" || scheme == "https") || !host_ok(p.host) || !port_ok {
            return None;
        }
        let path = if p.path.is_empty() {
            "/".to_owned()
        } else {
            web_encode(p.path)
        };
        if !path.starts_with('/') {
            return None;
        }
        Some(WebUrl {
            scheme,
            host: p.host.to_ascii_lowercase(),
            port: if port.is_empty() {
                String::new()
            } else {
                format!(":{port}")
            },
            path,
            query: p.query.map(web_encode),
        })
    }

    /// `scheme://host/path?query`, without the port: what the nginx map matches.
    fn key(&self) -> String {
        let mut k = format!("{}://{}{}", self.scheme, self.host, self.path);
        if let Some(q) = &self.query {
            k.push('?');
            k.push_str(q);
        }
        k
    }

    fn path_and_query(&self) -> String {
        match &self.query {
            Some(q) => format!("{}?{q}", self.path),
            None => self.path.clone(),
        }
    }

    /// The same scheme, host and path (any port or query string).
    fn same_path(&self, other: &WebUrl) -> bool {
        self.scheme == other.scheme && self.host == other.host && self.path == other.path
    }

    fn same_origin(&self, other: &WebUrl) -> bool {
        self.scheme == other.scheme && self.host == other.host && self.port == other.port
    }
}

/// A host name or IP literal, ASCII only.
fn host_ok(host: &str) -> bool {
    if let Some(ip) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return !ip.is_empty()
            && ip
                .bytes()
                .all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.');
    }
    !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_')
}

/// Percent-encodes what a browser would (controls, space, `"`, `<`, `>`, `` ` ``, and
/// non-ASCII bytes); everything else is kept, `%` included.
fn web_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if b <= b' ' || b >= 0x7F || matches!(b, b'"' | b'<' | b'>' | b'`') {
            let _ = write!(out, "%{b:02X}");
        } else {
            out.push(char::from(b));
        }
    }
    out
}

/// Adds `# URL (why)` to the list of redirects a file leaves out. The URL is
/// percent-encoded (no line break) and has no `\` (which would continue an Apache line)
/// nor `$` (Apache reads `${NAME}`).
fn note(notes: &mut String, r: &RedirectLine, why: &str) {
    let url = web_encode(&r.source)
        .replace('\\', "%5C")
        .replace('$', "%24");
    let _ = writeln!(notes, "#   {url} ({why})");
}

/// One nginx map entry.
struct NginxEntry {
    /// `scheme://host/path?query`.
    key: String,
    status: u16,
    /// The target, with `$` as `%24`.
    target: String,
}

/// A map from `subject` to `"STATUS SOURCE TARGET"`: exact strings (found whatever
/// their case, checked by the chained map), or regular expressions for the sources that
/// differ only in case or hold a `$`, whose SOURCE is the subject itself.
fn nginx_map(out: &mut String, subject: &str, var: &str, entries: &[NginxEntry]) {
    let mut cases: FxHashMap<String, usize> = FxHashMap::default();
    for e in entries {
        *cases.entry(e.key.to_ascii_lowercase()).or_default() += 1;
    }
    let _ = writeln!(out, "map {subject} ${var} {{\n    default \"\";");
    for e in entries {
        if e.key.contains('$') || cases[&e.key.to_ascii_lowercase()] > 1 {
            let _ = writeln!(
                out,
                "    \"~^{}\\z\" \"{} {subject} {}\";",
                nginx_quote(&pcre_escape(&e.key)),
                e.status,
                nginx_quote(&e.target)
            );
        } else {
            let key = nginx_quote(&e.key);
            let _ = writeln!(
                out,
                "    \"{key}\" \"{} {key} {}\";",
                e.status,
                nginx_quote(&e.target)
            );
        }
    }
    out.push_str("}\n");
}

/// Whether `location = {path}` matches exactly the requests for this raw path.
/// A path whose pages are chosen by the query string: the site root (`/?p=31`,
/// `/?title=Page`) and scripts (`/index.php?title=Page`, `/default.aspx?id=3`). A
/// redirect of such a path without a query must match only without one: with any
/// query string it would redirect every page the path serves.
fn dispatches_on_query(path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or("").to_ascii_lowercase();
    path == "/"
        || [".php", ".asp", ".aspx", ".jsp", ".cgi", ".pl", ".cfm"]
            .iter()
            .any(|ext| last.ends_with(ext))
}

fn nginx_location_safe(path: &str) -> bool {
    path.starts_with('/')
        && !path.contains("//")
        && !path.split('/').any(|s| s == "." || s == "..")
        && !is_index_path(path)
        && path
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~/!*'(),:@&=+".contains(&b))
}

/// The inside of an nginx quoted string.
fn nginx_quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Escapes a literal for PCRE: metacharacters get a backslash; `"`, `'` and `\` (which
/// the configuration languages would read) are written `\xHH`.
fn pcre_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '"' | '\'' | '\\' => {
                let _ = write!(out, "\\x{:02X}", u32::from(c));
            }
            '.' | '^' | '$' | '|' | '?' | '*' | '+' | '(' | ')' | '[' | ']' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// A quoted mod_rewrite substitution's inside: `\`, `$`, `%` and `{` escaped (`{` so that
/// no `${` remains, which Apache would read as a variable of its configuration).
fn apache_subst(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        if matches!(c, '\\' | '$' | '%' | '{') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A source path as a Netlify `from`: decoded, if that is UTF-8 and holds nothing that
/// `_redirects` would read otherwise (whitespace, `#`, `?`, `*`, a `:` placeholder) nor
/// a control or invisible format character (a bidirectional override would make the
/// line read otherwise to people: [`canon::is_format_char`]).
fn netlify_path(path: &str) -> Option<String> {
    let decoded = percent_decode_str(path).decode_utf8().ok()?;
    let bad = decoded.chars().any(|c| {
        c.is_whitespace()
            || c.is_control()
            || canon::is_format_char(c)
            || matches!(c, '#' | '?' | '*')
    }) || decoded.split('/').any(|s| s.starts_with(':'));
    (!bad && decoded.starts_with('/')).then(|| decoded.into_owned())
}

/// Escapes a path for Vercel's path patterns (path-to-regexp).
fn path_pattern_escape(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 8);
    for c in path.chars() {
        if matches!(c, ':' | '(' | ')' | '{' | '}' | '*' | '+' | '?' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A Vercel `destination`: after the scheme and host, `$`, `:`, `(` and `)` (which Vercel
/// reads as references to the source's patterns) are percent-encoded.
fn vercel_destination(target: &str) -> String {
    let start = target.find("://").map_or(0, |i| i + 3);
    let path = target[start..]
        .find(['/', '?', '#'])
        .map_or(target.len(), |i| start + i);
    let mut out = target[..path].to_owned();
    for c in target[path..].chars() {
        match c {
            '$' => out.push_str("%24"),
            ':' => out.push_str("%3A"),
            '(' => out.push_str("%28"),
            ')' => out.push_str("%29"),
            _ => out.push(c),
        }
    }
    out
}

/// A JSON string literal.
fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

/// A CSV field, quoted when it must be (RFC 4180).
fn csv_quote(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// A field of the Redirection plugin's CSV, if the plugin keeps it as it is: it decodes
/// the source and removes tags, control characters, leftover `%XX` escapes and the
/// whitespace around it; PHP's CSV reader also takes `\"` inside quotes as a quote.
fn wordpress_field(s: &str) -> Option<String> {
    let decoded = percent_decode_str(s).decode_utf8().ok()?;
    let leftover_escape = decoded
        .as_bytes()
        .windows(3)
        .any(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit());
    if leftover_escape
        || s.contains("&amp;")
        || decoded.contains('<')
        || decoded.chars().any(char::is_control)
        || decoded.trim() != decoded
    {
        return None;
    }
    let field = csv_quote(s);
    (!(field.starts_with('"') && field.ends_with("\\\""))).then_some(field)
}

/// Whether the plugin, ignoring letter case and a trailing slash, would match the target
/// with this source.
fn wordpress_loops(src: &WebUrl, tgt: &WebUrl) -> bool {
    let norm = |u: &WebUrl| {
        let p = u.path.trim_end_matches('/').to_lowercase();
        (p, u.query.clone())
    };
    norm(src) == norm(tgt)
}

/// A URL field of the plan's CSV files, exact (as the tables' URL columns are, see
/// [`csv_cell`](crate::export::csv_cell)): `dustpan simulate --plan` and `dustpan verify`
/// read the URLs back, and a `'` inserted after a `;` would make another URL.
fn csv_field(s: &str) -> String {
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
