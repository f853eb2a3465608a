-- List audits of an access log (`dustpan audit --list access.log`): the requests the log
-- holds for each listed URL, split by user agent into search-engine bots (unverified:
-- the user agent alone says so) and everything else. Read with the clusters to rank
-- them by the crawl budget their non-preferred URLs take.
CREATE TABLE log_hits (
    audit_id        INTEGER NOT NULL REFERENCES audits (id) ON DELETE CASCADE,
    url_id          INTEGER NOT NULL,   -- urls.id of the requested URL
    bot_requests    INTEGER NOT NULL CHECK (bot_requests >= 0),
    other_requests  INTEGER NOT NULL CHECK (other_requests >= 0),
    PRIMARY KEY (audit_id, url_id),
    FOREIGN KEY (audit_id, url_id) REFERENCES urls (audit_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
