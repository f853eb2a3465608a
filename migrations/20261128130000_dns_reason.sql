-- A host name that does not resolve is its own reason (`dns`), apart from a connection
-- that could not be made (`connect`): `urls.reason_kind` allows the word. SQLite cannot
-- change a column's CHECK in place, so the column is made again with the wider list and
-- its values copied.
ALTER TABLE urls RENAME COLUMN reason_kind TO reason_kind_before_dns;

ALTER TABLE urls ADD COLUMN reason_kind TEXT
    CHECK (reason_kind IN ('out_of_scope', 'address_refused', 'max_depth', 'nofollow',
                           'not_followed', 'redirect_limit', 'url_too_long',
                           'too_many_params', 'trap_repeated_segment', 'trap_pattern',
                           'trap_facets',
                           'max_urls', 'dust_duplicate', 'robots_txt', 'invalid_url',
                           'timeout', 'connect', 'dns', 'dropped', 'decode', 'body',
                           'request', 'panic', 'other'));

UPDATE urls SET reason_kind = reason_kind_before_dns WHERE reason_kind_before_dns IS NOT NULL;

ALTER TABLE urls DROP COLUMN reason_kind_before_dns;
