-- Samples fetched after a crawl to test learned DUST rules that had too little
-- evidence: for each rule, a few URLs it rewrites to URLs the crawl did not fetch.
-- The rewritten URL is fetched and its fingerprint compared with the page it was
-- rewritten from. Kept apart from `urls` / `fetches` so that the audit's pages,
-- clusters and findings stay those of the crawl itself.
CREATE TABLE dust_validations (
    audit_id        INTEGER NOT NULL REFERENCES audits (id) ON DELETE CASCADE,
    rule_id         TEXT    NOT NULL,   -- the rule's stable id (replace:A=>B, drop_param:X)
    url             TEXT    NOT NULL,   -- the fetched page the rule rewrote (its key)
    rewritten       TEXT    NOT NULL,   -- what the rule predicts is a duplicate of it
    url_text_hash   INTEGER NOT NULL,   -- `url`'s text hash (xxh3, bit for bit)
    url_simhash     INTEGER,
    fetched_at      INTEGER NOT NULL,
    status          INTEGER,            -- NULL: no response (see error_kind)
    text_hash       INTEGER,
    simhash         INTEGER,
    error_kind      TEXT,               -- why nothing usable came back (or out_of_scope, robots_txt)
    PRIMARY KEY (audit_id, rule_id, rewritten)
) WITHOUT ROWID;
