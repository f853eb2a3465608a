//! The SQL of the plans: per-URL facts, the evidence edges by kind, and the preference
//! order of a cluster's members. Each mirrors one decision of the built-in analysis
//! (`crates/audit`: `site.rs`, `cluster.rs`); where it cannot, the difference is named
//! in `docs/scale.md`.

use crate::Params;

use audit::SOFT_404_TITLES as SOFT_404;
use vocab::LinkKind;

/// Link kinds that declare a URL rather than link to it (`LinkKind::is_declared`).
fn declared_kinds() -> Vec<&'static str> {
    LinkKind::ALL
        .iter()
        .filter(|k| k.is_declared())
        .map(|k| k.as_str())
        .collect()
}

fn quoted(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| format!("'{}'", w.replace('\'', "''")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The host of an RFC 3986 URL held in column `u`: no scheme, user info, port, path.
pub(crate) fn host(u: &str) -> String {
    let authority = format!("split_part(split_part(split_part({u}, '://', 2), '/', 1), '?', 1)");
    let no_user = format!(
        "CASE WHEN strpos({authority}, '@') > 0 THEN split_part({authority}, '@', 2) ELSE {authority} END"
    );
    format!(
        "lower(CASE WHEN starts_with({no_user}, '[') THEN concat(split_part({no_user}, ']', 1), ']') \
         ELSE split_part({no_user}, ':', 1) END)"
    )
}

/// The scheme of an RFC 3986 URL held in column `u`, lowercase.
pub(crate) fn scheme(u: &str) -> String {
    format!("lower(split_part({u}, '://', 1))")
}

/// Parameters in the query of the URL in column `u` (`a=1&b` has 2; none without `?`).
fn params(u: &str) -> String {
    format!(
        "CASE WHEN strpos({u}, '?') = 0 THEN 0 ELSE \
         octet_length(substr({u}, strpos({u}, '?') + 1)) \
         - octet_length(replace(substr({u}, strpos({u}, '?') + 1), '&', '')) + 1 END"
    )
}

/// Hamming distance of two 64-bit SimHashes held in columns `a` and `b`.
fn hamming(a: &str, b: &str) -> String {
    let bits: Vec<String> = (0..64)
        .map(|k| format!("CASE WHEN (({a} >> {k}) & 1) = (({b} >> {k}) & 1) THEN 0 ELSE 1 END"))
        .collect();
    format!("({})", bits.join(" + "))
}

/// Whether the text in column `t` reads like an error page's title or heading
/// (`audit`'s `soft_404_title`); null when `t` is.
fn soft_404(t: &str) -> String {
    let any = SOFT_404
        .iter()
        .map(|p| format!("strpos(lower(btrim({t})), '{p}') > 0"))
        .collect::<Vec<_>>()
        .join(" OR ");
    format!("(lower(btrim({t})) = '404' OR {any})")
}

/// One row per fetched URL: the text its content evidence reads. Where the page was
/// rendered and its DOM read, the rendered page's title, first heading, words and text
/// hash (what a search engine indexes), the served SimHash only when the two texts are
/// the same; else the served page's.
pub(crate) fn texts() -> String {
    format!(
        "SELECT f.url_id,
            CASE WHEN r.url_id IS NULL THEN f.title ELSE r.title END AS title,
            CASE WHEN r.url_id IS NULL THEN f.h1 ELSE r.h1 END AS h1,
            CASE WHEN r.url_id IS NULL THEN f.word_count ELSE r.word_count END AS word_count,
            CASE WHEN r.url_id IS NULL THEN f.text_hash ELSE r.text_hash END AS text_hash,
            CASE WHEN r.url_id IS NULL OR r.text_hash IS NOT DISTINCT FROM f.text_hash
                 THEN f.simhash END AS simhash,
            (coalesce(f.noindex, false) OR coalesce(r.noindex, false)) AS noindex,
            coalesce(r.url_id IS NOT NULL AND {soft_h1}, false) AS soft_heading
         FROM fetches f
         LEFT JOIN renders r ON r.url_id = f.url_id AND r.outcome IN ({dom})",
        soft_h1 = soft_404("r.h1"),
        dom = DOM_READ,
    )
}

/// Render outcomes whose DOM was read (`RenderOutcome::has_dom`).
const DOM_READ: &str = "'rendered', 'unsettled'";

/// One row per URL: what the evidence and the preference order read.
pub(crate) fn facts(p: &Params) -> String {
    format!(
        "SELECT u.id, u.url_rfc3986 AS url, u.key, coalesce(u.key, u.url_rfc3986) AS key_str,
            (u.key IS NOT NULL AND u.key = u.url_rfc3986) AS key_form,
            (u.state = 'skipped' AND coalesce(u.reason, '') = 'out_of_scope') AS external,
            (u.state = 'blocked' OR rb.url_id IS NOT NULL) AS blocked,
            (u.found_via = 'variant' AND u.depth > 0) AS probe,
            f.url_id IS NOT NULL AS fetched, f.status, t.title, t.h1,
            coalesce(t.noindex, false) AS noindex,
            h.src IS NOT NULL AS has_hop,
            (f.status >= 200 AND f.status < 300) AS ok,
            coalesce(f.status >= 200 AND f.status < 300 AND h.src IS NULL, false) AS serves,
            CASE WHEN f.url_id IS NOT NULL THEN (f.status IS NULL OR f.status >= 400)
                 ELSE u.state = 'failed' END AS error,
            coalesce(f.status >= 200 AND f.status < 300 AND h.src IS NULL
                 AND coalesce(t.word_count, 0) >= {min_words}
                 AND NOT coalesce({soft} OR t.soft_heading, false)
                 AND t.text_hash IS NOT NULL, false) AS content_ok,
            t.text_hash, t.simhash, c.main_hash, c.main_words
         FROM urls u
         LEFT JOIN fetches f ON f.url_id = u.id
         LEFT JOIN texts t ON t.url_id = u.id
         LEFT JOIN (SELECT DISTINCT url_id FROM robots_blocks) rb ON rb.url_id = u.id
         LEFT JOIN hops h ON h.src = u.id
         LEFT JOIN content c ON c.url_id = u.id",
        min_words = p.min_words,
        soft = soft_404("t.title"),
    )
}

/// One row per URL with a hop out: redirects, else a fetch's `redirect_to`; a target
/// that is not a URL of the audit reads as unresolved (null).
pub(crate) fn hops() -> String {
    "SELECT x.src, t.id AS dst, x.status, x.kind FROM (
        SELECT from_url_id AS src, to_url_id AS dst, status, kind FROM redirects
        UNION ALL
        SELECT f.url_id AS src, f.redirect_to AS dst, coalesce(f.status, 0) AS status,
               CASE WHEN f.status >= 300 AND f.status < 400 THEN 'http' ELSE 'meta_refresh' END AS kind
        FROM fetches f
        WHERE f.redirect_to IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM redirects r WHERE r.from_url_id = f.url_id)
     ) x
     JOIN urls s ON s.id = x.src
     LEFT JOIN urls t ON t.id = x.dst"
        .to_owned()
}

/// The first step of every chain: `(start, cur, hops, state)`, state 0 walking.
pub(crate) fn chain_start() -> String {
    "SELECT src AS start, src AS cur, 0 AS hops, 0 AS state FROM hops".to_owned()
}

/// One step of every walking chain: 1 final (no hop out of `cur`), 2 unresolved, 3 a
/// loop (back at its start).
pub(crate) fn chain_step(prev: &str) -> String {
    format!(
        "SELECT c.start,
            CASE WHEN c.state <> 0 OR h.src IS NULL OR h.dst IS NULL THEN c.cur ELSE h.dst END AS cur,
            CASE WHEN c.state <> 0 OR h.src IS NULL OR h.dst IS NULL THEN c.hops ELSE c.hops + 1 END AS hops,
            CASE WHEN c.state <> 0 THEN c.state
                 WHEN h.src IS NULL THEN 1
                 WHEN h.dst IS NULL THEN 2
                 WHEN h.dst = c.start THEN 3
                 ELSE 0 END AS state
         FROM {prev} c LEFT JOIN hops h ON h.src = c.cur"
    )
}

/// Each page's one effective canonical: in head or a header, resolved, all agreeing;
/// where the page was rendered and its DOM read, the rendered head's (none when it
/// names none, unless a header names one: a header is not in the DOM).
pub(crate) fn eff_canon() -> String {
    format!(
        "SELECT page, target FROM (
            SELECT coalesce(raw.page, d.page) AS page,
                   CASE WHEN d.page IS NULL THEN raw.target
                        WHEN d.names THEN d.target
                        WHEN d.from_header THEN raw.target END AS target
            FROM (SELECT c.page_url_id AS page, min(c.target_url_id) AS target
                  FROM canonicals c JOIN urls t ON t.id = c.target_url_id
                  WHERE c.source = 'http_header' OR c.in_head
                  GROUP BY c.page_url_id
                  HAVING count(DISTINCT c.target_url_id) = 1) raw
            FULL OUTER JOIN (
                  SELECT r.url_id AS page, r.names_canonical AS names, t.id AS target,
                         hd.page IS NOT NULL AS from_header
                  FROM renders r
                  LEFT JOIN urls t ON t.id = r.canonical_url_id
                  LEFT JOIN (SELECT DISTINCT page_url_id AS page FROM canonicals
                             WHERE source = 'http_header') hd ON hd.page = r.url_id
                  WHERE r.outcome IN ({dom})) d
            ON d.page = raw.page
         ) e WHERE target IS NOT NULL",
        dom = DOM_READ,
    )
}

/// The two pages' titles and first h1s are all present and differ.
fn titled_apart(a: &str, b: &str) -> String {
    format!(
        "coalesce(btrim({a}.title) <> btrim({b}.title) AND btrim({a}.h1) <> btrim({b}.h1), false)"
    )
}

/// Identical text, or identical main content with enough words and not titled apart.
fn identical(a: &str, b: &str, p: &Params) -> String {
    format!(
        "({a}.content_ok AND {b}.content_ok AND ({a}.text_hash = {b}.text_hash
           OR coalesce({a}.main_hash = {b}.main_hash AND {a}.main_words >= {w}
                       AND {b}.main_words >= {w} AND NOT {ta}, false)))",
        w = p.min_words,
        ta = titled_apart(a, b),
    )
}

/// Near-identical by SimHash, for pages stored without text blocks (with text blocks
/// the analysis compares shingles, which the files do not hold).
fn near_by_simhash(a: &str, b: &str, p: &Params) -> String {
    format!(
        "({a}.content_ok AND {b}.content_ok AND ({a}.main_hash IS NULL OR {b}.main_hash IS NULL)
          AND {a}.simhash IS NOT NULL AND {b}.simhash IS NOT NULL
          AND {h} <= {d})",
        h = hamming(&format!("{a}.simhash"), &format!("{b}.simhash")),
        d = p.near_distance,
    )
}

/// Redirect evidence: a URL and the final target of its chain.
pub(crate) fn redirect_edges() -> String {
    "SELECT c.start AS a, c.cur AS b FROM chains c
     JOIN facts fa ON fa.id = c.start
     JOIN facts fb ON fb.id = c.cur
     JOIN hops h ON h.src = c.start
     WHERE c.state = 1 AND c.start <> c.cur
       AND NOT fa.external AND NOT fb.external AND NOT fb.error
       AND (NOT (h.kind = 'http' AND h.status IN (302, 303, 307))
            OR coalesce(fa.key = fb.key, false))"
        .to_owned()
}

/// Canonical evidence: a serving page and its target, judged by the page the target
/// leads to (through its redirects).
pub(crate) fn canonical_edges(p: &Params) -> String {
    format!(
        "SELECT x.page AS a, x.target AS b FROM (
            SELECT e.page, e.target,
                   CASE WHEN ft.has_hop THEN (CASE WHEN ch.state = 1 THEN ch.cur END)
                        ELSE e.target END AS dest
            FROM eff_canon e
            JOIN facts fp ON fp.id = e.page
            JOIN facts ft ON ft.id = e.target
            LEFT JOIN chains ch ON ch.start = e.target
            WHERE e.target <> e.page AND fp.serves AND NOT ft.external
         ) x
         JOIN facts fa ON fa.id = x.page
         JOIN facts fb ON fb.id = x.dest
         WHERE x.dest <> x.page AND NOT fb.external AND NOT fb.error
           AND ({identical} OR {near}
                OR (NOT (fa.content_ok AND fb.content_ok) AND fb.serves))",
        identical = identical("fa", "fb", p),
        near = near_by_simhash("fa", "fb", p),
    )
}

/// Same-key evidence: identical text within a key, and identical main content between
/// the first page of each distinct text.
pub(crate) fn same_key_edges(p: &Params) -> String {
    format!(
        "SELECT f.id AS a, r.rep AS b FROM facts f
         JOIN (SELECT key, text_hash, min(id) AS rep FROM facts
               WHERE content_ok AND key IS NOT NULL GROUP BY key, text_hash) r
           ON r.key = f.key AND r.text_hash = f.text_hash
         WHERE f.content_ok AND f.id <> r.rep
         UNION ALL
         SELECT fa.id AS a, fb.id AS b FROM facts fa
         JOIN facts fb ON fa.key = fb.key AND fa.main_hash = fb.main_hash AND fa.id < fb.id
         WHERE fa.key IS NOT NULL AND fa.text_hash <> fb.text_hash
           AND fa.id IN (SELECT min(id) FROM facts WHERE content_ok AND key IS NOT NULL GROUP BY key, text_hash)
           AND fb.id IN (SELECT min(id) FROM facts WHERE content_ok AND key IS NOT NULL GROUP BY key, text_hash)
           AND {identical}",
        identical = identical("fa", "fb", p),
    )
}

/// Identical-content evidence: the same text, then the same main content (each page
/// joined to the first earlier page of its main content not titled apart from it).
pub(crate) fn content_edges(p: &Params) -> String {
    format!(
        "SELECT f.id AS a, r.rep AS b FROM facts f
         JOIN (SELECT text_hash, min(id) AS rep FROM facts WHERE content_ok GROUP BY text_hash) r
           ON r.text_hash = f.text_hash
         WHERE f.content_ok AND f.id <> r.rep
         UNION ALL
         SELECT fa.id AS a, min(fb.id) AS b FROM facts fa
         JOIN facts fb ON fb.main_hash = fa.main_hash AND fb.id < fa.id
         WHERE fa.content_ok AND fb.content_ok
           AND fa.main_words >= {w} AND fb.main_words >= {w}
           AND NOT {ta}
         GROUP BY fa.id",
        w = p.min_words,
        ta = titled_apart("fa", "fb"),
    )
}

/// URLs made up by the audit (variant probes) and those only they led to, one more
/// generation of finders per call.
pub(crate) fn made_up_start() -> String {
    "SELECT id FROM urls WHERE found_via = 'variant' AND depth > 0".to_owned()
}

/// One more generation of URLs found from made-up ones (not as start or sitemap).
pub(crate) fn made_up_step(prev: &str) -> String {
    format!(
        "SELECT id FROM {prev}
         UNION
         SELECT u.id FROM urls u JOIN {prev} m ON u.found_from = m.id
         WHERE u.found_via NOT IN ('start', 'sitemap')"
    )
}

/// The preference columns of every URL (better first, as `ORDER BY` reads them).
pub(crate) fn preference() -> String {
    // A post naming its own comment page canonical counts as self-canonical.
    let declared = "CASE WHEN e.target = f.id THEN 2
                         WHEN cp.comments_of = f.url
                              OR (strpos(f.url, '?') = 0 AND cp.comments_of = concat(f.url, '/')) THEN 2
                         WHEN e.target IS NULL AND coalesce(ci.n, 0) > 0 THEN 2
                         WHEN e.target IS NULL AND ca.page IS NULL THEN 1
                         ELSE 0 END";
    let declared_kinds = quoted(&declared_kinds());
    format!(
        "SELECT f.id, f.url, f.serves, (f.serves AND NOT f.noindex AND NOT f.blocked) AS indexable,
            {declared} AS declared,
            ({scheme} = coalesce(sp.scheme, 'https')) AS scheme_ok,
            dh.host IS NULL AS host_ok,
            NOT (starts_with({host}, '[') OR ({host} <> '' AND translate({host}, '0123456789.', '') = '')) AS not_ip,
            ({params_url} <= {params_key}) AS clean,
            coalesce(sm.n, 0) > 0 AS in_sitemap,
            coalesce(il.n, 0) AS inlinks,
            f.probe, octet_length(f.key_str) AS key_len, f.key_str, f.key_form
         FROM facts f
         LEFT JOIN eff_canon e ON e.page = f.id
         LEFT JOIN urls cp ON cp.id = e.target AND e.target <> f.id
         LEFT JOIN (SELECT target, count(*) AS n FROM eff_canon WHERE target <> page GROUP BY target) ci
           ON ci.target = f.id
         LEFT JOIN (SELECT DISTINCT page_url_id AS page FROM canonicals) ca ON ca.page = f.id
         LEFT JOIN (SELECT url_id, count(*) AS n FROM sitemap_entries WHERE url_id IS NOT NULL GROUP BY url_id) sm
           ON sm.url_id = f.id
         LEFT JOIN (SELECT l.to_url_id AS id, count(DISTINCT l.from_url_id) AS n FROM links l
                    JOIN facts a ON a.id = l.from_url_id JOIN facts b ON b.id = l.to_url_id
                    WHERE l.from_url_id <> l.to_url_id AND NOT a.external AND NOT b.external
                      AND l.from_url_id NOT IN (SELECT id FROM made_up)
                      AND l.tag NOT IN ({declared_kinds})
                    GROUP BY l.to_url_id) il ON il.id = f.id
         CROSS JOIN site_scheme sp
         LEFT JOIN demoted_hosts dh ON dh.host = {host}",
        scheme = scheme("f.url"),
        host = host("f.url"),
        params_url = params("f.url"),
        params_key = params("f.key_str"),
    )
}

/// The site's preferred scheme, from its scheme-changing HTTP redirects on one host
/// (null when they tie).
pub(crate) fn site_scheme() -> String {
    format!(
        "SELECT CASE WHEN https > http THEN 'https' WHEN http > https THEN 'http' END AS scheme FROM (
            SELECT coalesce(sum(CASE WHEN {sb} = 'https' THEN 1 ELSE 0 END), 0) AS https,
                   coalesce(sum(CASE WHEN {sb} = 'http' THEN 1 ELSE 0 END), 0) AS http
            FROM hops h JOIN urls a ON a.id = h.src JOIN urls b ON b.id = h.dst
            WHERE h.kind = 'http' AND {sa} <> {sb} AND {ha} = {hb})",
        sa = scheme("a.url_rfc3986"),
        sb = scheme("b.url_rfc3986"),
        ha = host("a.url_rfc3986"),
        hb = host("b.url_rfc3986"),
    )
}

/// Hosts the site redirects away from more than to.
pub(crate) fn demoted_hosts() -> String {
    format!(
        "SELECT host FROM (
            SELECT host, sum(v) AS balance FROM (
                SELECT {ha} AS host, -1 AS v FROM hops h JOIN urls a ON a.id = h.src JOIN facts b ON b.id = h.dst
                WHERE h.kind = 'http' AND {ha} <> {hb} AND NOT b.external
                UNION ALL
                SELECT {hb} AS host, 1 AS v FROM hops h JOIN urls a ON a.id = h.src JOIN facts b ON b.id = h.dst
                WHERE h.kind = 'http' AND {ha} <> {hb} AND NOT b.external
            ) votes GROUP BY host
         ) x WHERE balance < 0",
        ha = host("a.url_rfc3986"),
        hb = host("b.url"),
    )
}

/// One round of label propagation over `edges`: each URL takes the smallest label of
/// itself and its neighbours, then the label of its label (pointer jumping).
pub(crate) fn propagate(labels: &str, edges: &str) -> String {
    format!(
        "SELECT s.id, coalesce(j.label, s.label) AS label FROM (
            SELECT l.id, CASE WHEN m.label IS NOT NULL AND m.label < l.label THEN m.label ELSE l.label END AS label
            FROM {labels} l
            LEFT JOIN (
                SELECT id, min(label) AS label FROM (
                    SELECT e.a AS id, lb.label FROM {edges} e JOIN {labels} lb ON lb.id = e.b
                    UNION ALL
                    SELECT e.b AS id, la.label FROM {edges} e JOIN {labels} la ON la.id = e.a
                ) n GROUP BY id
            ) m ON m.id = l.id
         ) s
         LEFT JOIN {labels} j ON j.id = s.label"
    )
}

/// Each clustered URL with its cluster's preferred URL.
pub(crate) fn members(labels: &str) -> String {
    format!(
        "SELECT url, preferred_url FROM (
            SELECT p.url, first_value(p.url) OVER (PARTITION BY l.label ORDER BY
                     p.serves DESC, p.indexable DESC, p.declared DESC, p.scheme_ok DESC,
                     p.host_ok DESC, p.not_ip DESC, p.clean DESC, p.in_sitemap DESC,
                     p.inlinks DESC, p.probe ASC, p.key_len ASC, p.key_str ASC,
                     p.key_form DESC, p.url ASC
                     ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS preferred_url
            FROM {labels} l
            JOIN preference p ON p.id = l.id
            JOIN (SELECT label FROM {labels} GROUP BY label HAVING count(*) >= 2) c ON c.label = l.label
         ) m"
    )
}
