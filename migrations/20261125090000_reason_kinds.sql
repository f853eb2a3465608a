-- Why a URL was skipped, blocked or failed, as a word from a fixed list
-- (`reason_kind`); `reason` now holds only the detail people read (a trap's pattern,
-- a panic's message), NULL when the word says it all. Rows written before are
-- converted: known words move to `reason_kind`, `trap: ...` texts become a trap kind
-- with the rest as detail, anything else is `other` with its text kept.
ALTER TABLE urls ADD COLUMN reason_kind TEXT
    CHECK (reason_kind IN ('out_of_scope', 'address_refused', 'max_depth', 'nofollow',
                           'not_followed', 'redirect_limit', 'url_too_long',
                           'too_many_params', 'trap_repeated_segment', 'trap_pattern',
                           'trap_facets',
                           'max_urls', 'dust_duplicate', 'robots_txt', 'invalid_url',
                           'timeout', 'connect', 'dropped', 'decode', 'body', 'request',
                           'panic', 'other'));

UPDATE urls SET
    reason_kind = CASE
        WHEN reason IN ('out_of_scope', 'address_refused', 'max_depth', 'nofollow',
                        'not_followed', 'redirect_limit', 'url_too_long', 'too_many_params',
                        'max_urls', 'dust_duplicate', 'robots_txt', 'invalid_url', 'timeout',
                        'connect', 'dropped', 'decode', 'body', 'request', 'panic')
            THEN reason
        WHEN substr(reason, 1, 26) = 'trap: path repeats segment' THEN 'trap_repeated_segment'
        WHEN substr(reason, 1, 11) = 'trap: over ' THEN 'trap_pattern'
        ELSE 'other'
    END,
    reason = CASE
        WHEN reason IN ('out_of_scope', 'address_refused', 'max_depth', 'nofollow',
                        'not_followed', 'redirect_limit', 'url_too_long', 'too_many_params',
                        'max_urls', 'dust_duplicate', 'robots_txt', 'invalid_url', 'timeout',
                        'connect', 'dropped', 'decode', 'body', 'request', 'panic')
            THEN NULL
        WHEN substr(reason, 1, 26) = 'trap: path repeats segment'
          OR substr(reason, 1, 11) = 'trap: over ' THEN substr(reason, 7)
        ELSE reason
    END
WHERE reason IS NOT NULL;

-- `audits.pages_fetched` counts the URLs whose request got an HTTP response (a fetch
-- row with a status), the one number of pages fetched every screen shows; it counted
-- fetch rows before, requests that got no response included.
UPDATE audits SET pages_fetched = (
    SELECT COUNT(*) FROM fetches f WHERE f.audit_id = audits.id AND f.status IS NOT NULL
);
