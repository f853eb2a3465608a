-- Dustpan crawl schema: one file holds many audits.
--
-- Conventions:
-- * times are INTEGER milliseconds since the Unix epoch (UTC);
-- * 64-bit fingerprints (text_hash, simhash) are stored bit-for-bit as signed INTEGERs;
-- * every table below `audits` carries `audit_id`, and URL ids are numbered per audit
--   (`urls` has the composite key (audit_id, id)), so two audits never share a row and
--   deleting an audit cascades to everything it found;
-- * foreign keys between crawl tables are DEFERRABLE INITIALLY DEFERRED: the single
--   writer commits batches in which a link may arrive before the URL row it points at.

CREATE TABLE audits (
    id              INTEGER PRIMARY KEY,
    started_at      INTEGER NOT NULL,
    finished_at     INTEGER,
    status          TEXT    NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'finished', 'cancelled', 'failed')),
    start_urls      TEXT    NOT NULL,            -- JSON array of strings
    config          TEXT    NOT NULL,            -- JSON crawl configuration
    discovery_done  INTEGER NOT NULL DEFAULT 0,  -- robots.txt + sitemaps + variants done
    failure         TEXT,                        -- why status = 'failed'
    -- running counters, updated by the writer at every commit
    urls_found      INTEGER NOT NULL DEFAULT 0,
    pages_fetched   INTEGER NOT NULL DEFAULT 0,
    fetch_errors    INTEGER NOT NULL DEFAULT 0,
    -- wall-clock milliseconds spent crawling, summed over runs (resume adds to it)
    elapsed_ms      INTEGER NOT NULL DEFAULT 0
);

-- Every URL the crawl has seen: the persisted frontier and the nodes of the link graph.
CREATE TABLE urls (
    audit_id        INTEGER NOT NULL REFERENCES audits (id) ON DELETE CASCADE,
    id              INTEGER NOT NULL,
    url             TEXT    NOT NULL,   -- absolute URL as first found (what is requested)
    url_rfc3986     TEXT    NOT NULL,   -- canon rfc3986 form: the frontier's identity
    url_seo         TEXT,               -- canon seo form (NULL if it could not be formed)
    host            TEXT    NOT NULL,
    depth           INTEGER NOT NULL,   -- link hops from a start URL
    redirect_depth  INTEGER NOT NULL DEFAULT 0, -- redirect hops that led here
    found_from      INTEGER,            -- urls.id of the page (or redirect source) that found it
    found_via       TEXT    NOT NULL
                    CHECK (found_via IN ('start', 'variant', 'link', 'redirect', 'meta_refresh',
                                         'canonical', 'hreflang', 'sitemap')),
    state           TEXT    NOT NULL DEFAULT 'queued'
                    CHECK (state IN ('queued', 'fetching', 'done', 'blocked', 'failed', 'skipped')),
    reason          TEXT,               -- why skipped / blocked / failed
    PRIMARY KEY (audit_id, id),
    UNIQUE (audit_id, url_rfc3986)
);
CREATE INDEX urls_frontier ON urls (audit_id, depth, id) WHERE state = 'queued';
CREATE INDEX urls_state ON urls (audit_id, state);
CREATE INDEX urls_seo ON urls (audit_id, url_seo);

-- One row per fetched URL (at most one: a URL is fetched once per audit).
CREATE TABLE fetches (
    audit_id        INTEGER NOT NULL,
    url_id          INTEGER NOT NULL,
    fetched_at      INTEGER NOT NULL,
    status          INTEGER,            -- HTTP status; NULL when no response arrived
    content_type    TEXT,
    content_length  INTEGER,            -- Content-Length header, if any
    body_bytes      INTEGER NOT NULL DEFAULT 0, -- bytes read (after decompression)
    truncated       INTEGER NOT NULL DEFAULT 0, -- body hit the byte cap
    ttfb_ms         INTEGER,
    total_ms        INTEGER,
    attempts        INTEGER NOT NULL DEFAULT 1, -- > 1 after 429/503 Retry-After retries
    redirect_to     INTEGER,            -- urls.id of this URL's hop target (3xx or meta refresh)
    title           TEXT,
    meta_robots     TEXT,
    x_robots_tag    TEXT,
    noindex         INTEGER NOT NULL DEFAULT 0,
    nofollow        INTEGER NOT NULL DEFAULT 0,
    text_hash       INTEGER,
    simhash         INTEGER,
    word_count      INTEGER,
    charset         TEXT,
    error_kind      TEXT,               -- timeout, connect, body, too_many_retries, ...
    error_message   TEXT,
    PRIMARY KEY (audit_id, url_id),
    FOREIGN KEY (audit_id, url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX fetches_text_hash ON fetches (audit_id, text_hash) WHERE text_hash IS NOT NULL;
CREATE INDEX fetches_status ON fetches (audit_id, status);

-- Redirect hops, one per redirecting URL: a chain A -> B -> C is the rows A->B (hop 0) and
-- B->C (hop 1), each the response of its own request.
CREATE TABLE redirects (
    audit_id        INTEGER NOT NULL,
    from_url_id     INTEGER NOT NULL,
    to_url_id       INTEGER,            -- NULL when Location could not be resolved
    status          INTEGER NOT NULL,   -- 301, 302, ...; the page status for a meta refresh
    location_raw    TEXT    NOT NULL,   -- Location header / meta refresh URL as sent
    hop_index       INTEGER NOT NULL,   -- position in the chain (from URL's redirect_depth)
    kind            TEXT    NOT NULL CHECK (kind IN ('http', 'meta_refresh')),
    error           TEXT,               -- why to_url_id is NULL
    PRIMARY KEY (audit_id, from_url_id),
    FOREIGN KEY (audit_id, from_url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    FOREIGN KEY (audit_id, to_url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX redirects_to ON redirects (audit_id, to_url_id);

-- Redirect chains that went wrong, found after the crawl by walking `redirects`.
CREATE TABLE redirect_chains (
    audit_id        INTEGER NOT NULL,
    start_url_id    INTEGER NOT NULL,
    final_url_id    INTEGER,            -- last URL reached (NULL for a loop)
    hops            INTEGER NOT NULL,
    problem         TEXT    NOT NULL CHECK (problem IN ('loop', 'too_long')),
    PRIMARY KEY (audit_id, start_url_id),
    FOREIGN KEY (audit_id, start_url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);

-- Links found in pages (a, area, link rel=next/prev, ...).
CREATE TABLE links (
    audit_id        INTEGER NOT NULL,
    from_url_id     INTEGER NOT NULL,
    position        INTEGER NOT NULL,   -- order in the page
    to_url_id       INTEGER,            -- NULL when href did not resolve to an http(s) URL
    href_raw        TEXT    NOT NULL,
    anchor_text     TEXT,
    nofollow        INTEGER NOT NULL DEFAULT 0,
    tag             TEXT    NOT NULL,
    error           TEXT,               -- canon error kind when to_url_id is NULL
    PRIMARY KEY (audit_id, from_url_id, position),
    FOREIGN KEY (audit_id, from_url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    FOREIGN KEY (audit_id, to_url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
) WITHOUT ROWID;
CREATE INDEX links_to ON links (audit_id, to_url_id);

-- rel=canonical declarations, from the link element and the HTTP Link header.
CREATE TABLE canonicals (
    audit_id        INTEGER NOT NULL,
    page_url_id     INTEGER NOT NULL,
    position        INTEGER NOT NULL,   -- order of declaration (headers first)
    target_url_id   INTEGER,            -- NULL when href did not resolve
    href_raw        TEXT    NOT NULL,
    source          TEXT    NOT NULL CHECK (source IN ('link_element', 'http_header')),
    in_head         INTEGER NOT NULL DEFAULT 1,
    error           TEXT,
    PRIMARY KEY (audit_id, page_url_id, position),
    FOREIGN KEY (audit_id, page_url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    FOREIGN KEY (audit_id, target_url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX canonicals_target ON canonicals (audit_id, target_url_id);

-- hreflang alternates (link element or HTTP Link header).
CREATE TABLE hreflang (
    audit_id        INTEGER NOT NULL,
    page_url_id     INTEGER NOT NULL,
    position        INTEGER NOT NULL,
    lang            TEXT    NOT NULL,
    target_url_id   INTEGER,
    href_raw        TEXT    NOT NULL,
    source          TEXT    NOT NULL CHECK (source IN ('link_element', 'http_header')),
    PRIMARY KEY (audit_id, page_url_id, position),
    FOREIGN KEY (audit_id, page_url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    FOREIGN KEY (audit_id, target_url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX hreflang_target ON hreflang (audit_id, target_url_id);

-- Sitemaps fetched (urlset, index, text), with the issues their parser recorded.
CREATE TABLE sitemaps (
    audit_id        INTEGER NOT NULL REFERENCES audits (id) ON DELETE CASCADE,
    id              INTEGER NOT NULL,
    url             TEXT    NOT NULL,
    kind            TEXT    NOT NULL,   -- urlset, sitemapindex, text, rss, atom, unknown
    parent_id       INTEGER,            -- sitemaps.id of the index that listed it
    found_via       TEXT    NOT NULL CHECK (found_via IN ('robots', 'default', 'user', 'index')),
    fetched_at      INTEGER NOT NULL,
    status          INTEGER,            -- HTTP status; NULL when no response arrived
    body_bytes      INTEGER NOT NULL DEFAULT 0,
    gzip            INTEGER NOT NULL DEFAULT 0,
    entries         INTEGER NOT NULL DEFAULT 0,
    issues          TEXT    NOT NULL DEFAULT '[]', -- JSON array of {kind, detail}
    error           TEXT,
    PRIMARY KEY (audit_id, id),
    UNIQUE (audit_id, url)
);

-- URLs listed in sitemaps.
CREATE TABLE sitemap_entries (
    audit_id        INTEGER NOT NULL,
    sitemap_id      INTEGER NOT NULL,
    position        INTEGER NOT NULL,
    url_id          INTEGER,            -- NULL when loc did not resolve
    loc_raw         TEXT    NOT NULL,
    lastmod         TEXT,
    changefreq      TEXT,
    priority        REAL,
    PRIMARY KEY (audit_id, sitemap_id, position),
    FOREIGN KEY (audit_id, sitemap_id) REFERENCES sitemaps (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    FOREIGN KEY (audit_id, url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
) WITHOUT ROWID;
CREATE INDEX sitemap_entries_url ON sitemap_entries (audit_id, url_id);

-- robots.txt fetches, one per origin (scheme://host:port).
CREATE TABLE robots (
    audit_id        INTEGER NOT NULL REFERENCES audits (id) ON DELETE CASCADE,
    origin          TEXT    NOT NULL,
    fetched_at      INTEGER NOT NULL,
    status          INTEGER,            -- NULL when no response arrived
    body            TEXT,               -- the file as read (capped), kept so resume need not refetch
    crawl_delay     REAL,               -- seconds, as written in the file
    sitemaps        TEXT    NOT NULL DEFAULT '[]', -- JSON array of Sitemap: lines
    -- allow_all (4xx, missing), disallow_all (5xx / unreachable), rules (parsed body)
    verdict         TEXT    NOT NULL CHECK (verdict IN ('allow_all', 'disallow_all', 'rules')),
    error           TEXT,
    PRIMARY KEY (audit_id, origin)
);

-- URLs robots.txt kept us from requesting.
CREATE TABLE robots_blocks (
    audit_id        INTEGER NOT NULL,
    url_id          INTEGER NOT NULL,
    origin          TEXT    NOT NULL,   -- robots.origin whose rules blocked it
    PRIMARY KEY (audit_id, url_id),
    FOREIGN KEY (audit_id, url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);

-- Problems that are not a page's own fetch result (sitemap parse failures, robots errors,
-- a page whose processing failed, ...).
CREATE TABLE errors (
    id              INTEGER PRIMARY KEY,
    audit_id        INTEGER NOT NULL REFERENCES audits (id) ON DELETE CASCADE,
    url_id          INTEGER,
    at              INTEGER NOT NULL,
    phase           TEXT    NOT NULL,   -- robots, sitemap, fetch, extract, crawl
    kind            TEXT    NOT NULL,
    message         TEXT    NOT NULL
);
CREATE INDEX errors_audit ON errors (audit_id, url_id);
