-- Why an audit's crawl ended before it had fetched everything it found: a limit of its
-- configuration (`max_urls`, `max_depth`: URLs were found and left uncrawled) or a
-- budget that stopped the crawl (`max_db_bytes`, `max_duration`, `slow_host`). NULL
-- when the crawl covered everything in scope. `stop_detail` says where, for people.
ALTER TABLE audits ADD COLUMN stop_reason TEXT
    CHECK (stop_reason IN ('max_urls', 'max_depth', 'max_db_bytes', 'max_duration',
                           'slow_host'));
ALTER TABLE audits ADD COLUMN stop_detail TEXT;
-- Bytes the crawl handed to the database for this audit (row contents and an estimate
-- of their index entries), over all runs: what the storage budget counts.
ALTER TABLE audits ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
