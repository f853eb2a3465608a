-- URL-variant probes: after the crawl, a sample of the site's pages is requested under
-- URL variants no page links to (the other host name or scheme, the trailing slash
-- added or removed, the path upper-cased, an index file name, a doubled slash, a
-- tracking, session or unknown parameter, an empty query, the server's IP address).
-- One row per variant and rule: `url_id` is the variant (fetched like any URL, or the
-- URL a page already linked), `base_url_id` the page it is a variant of.
CREATE TABLE probes (
    audit_id        INTEGER NOT NULL REFERENCES audits (id) ON DELETE CASCADE,
    url_id          INTEGER NOT NULL,
    base_url_id     INTEGER NOT NULL,
    rule            TEXT    NOT NULL
                    CHECK (rule IN ('host_www', 'scheme', 'trailing_slash', 'path_case',
                                    'index_file', 'double_slash', 'tracking_param',
                                    'session_param', 'unknown_param', 'empty_query',
                                    'ip_host')),
    PRIMARY KEY (audit_id, url_id, rule),
    FOREIGN KEY (audit_id, url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    FOREIGN KEY (audit_id, base_url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
) WITHOUT ROWID;

-- Where an audit is with its probes: `pending` until a run has drained the frontier and
-- fetched them, then `done` (a resumed audit does not probe twice). Audits created
-- before probes existed are `none`: resuming one never probes.
ALTER TABLE audits ADD COLUMN probe_phase TEXT NOT NULL DEFAULT 'pending'
    CHECK (probe_phase IN ('pending', 'done', 'none'));
UPDATE audits SET probe_phase = 'none';
