-- Pages rendered in headless Chromium (audits started with --render): what the rendered
-- DOM (document.documentElement.outerHTML, through the same HTML extractor as the raw
-- page) says, beside the raw page's fetch row. One row per rendered page.
CREATE TABLE renders (
    audit_id        INTEGER NOT NULL,
    url_id          INTEGER NOT NULL,
    -- rendered (settled), unsettled (read at the deadline), timeout, failed
    outcome         TEXT    NOT NULL,
    message         TEXT,               -- why it did not settle or failed
    render_ms       INTEGER NOT NULL,
    requests        INTEGER NOT NULL DEFAULT 0, -- requests the page made
    refused         INTEGER NOT NULL DEFAULT 0, -- of them, refused by scope / address policy
    final_url       TEXT,               -- location.href when the DOM was read
    title           TEXT,
    h1              TEXT,
    meta_robots     TEXT,
    noindex         INTEGER NOT NULL DEFAULT 0,
    nofollow        INTEGER NOT NULL DEFAULT 0,
    canonical_href  TEXT,               -- the first canonical link element in <head>
    canonical_url_id INTEGER,           -- its target (NULL when none or unresolved)
    hreflang        TEXT,               -- JSON array of [lang, href]
    text_hash       INTEGER,
    word_count      INTEGER,
    blocks          BLOB,               -- extract::blocks, as fetches.blocks
    links           INTEGER NOT NULL DEFAULT 0, -- links in the rendered DOM
    PRIMARY KEY (audit_id, url_id),
    FOREIGN KEY (audit_id, url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    FOREIGN KEY (audit_id, canonical_url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);

-- The links of the rendered DOM (a and area), with where they sit and their anchor
-- text; js_only: not among the raw page's links (found only after JavaScript ran).
CREATE TABLE rendered_links (
    audit_id        INTEGER NOT NULL,
    from_url_id     INTEGER NOT NULL,
    position        INTEGER NOT NULL,
    to_url_id       INTEGER,
    href_raw        TEXT    NOT NULL,
    anchor_text     TEXT,
    region          TEXT
                    CHECK (region IN ('navigation', 'header', 'footer', 'sidebar', 'main', 'body')),
    js_only         INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (audit_id, from_url_id, position),
    FOREIGN KEY (audit_id, from_url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    FOREIGN KEY (audit_id, to_url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
) WITHOUT ROWID;
CREATE INDEX rendered_links_to ON rendered_links (audit_id, to_url_id);
