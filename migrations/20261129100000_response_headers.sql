-- The response headers of every fetch (redirect hops included), bounded: one row per
-- fetched URL holding its headers as `name: value` lines (names lower case, in the
-- order sent), at most 32 headers and 8 KiB a response, a value over 1 KiB cut with a
-- marker; `omitted` counts the headers past those bounds. One text per response keeps
-- the row compact (the `fetches` row is written beside it on the crawl's hot path).
CREATE TABLE response_headers (
    audit_id        INTEGER NOT NULL,
    url_id          INTEGER NOT NULL,
    headers         TEXT    NOT NULL,
    omitted         INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (audit_id, url_id),
    FOREIGN KEY (audit_id, url_id) REFERENCES urls (audit_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
