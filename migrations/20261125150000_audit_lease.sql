-- Who is crawling an audit: one row per audit being crawled or resumed, taken when a run
-- starts, renewed (heartbeat_at) while it runs, deleted when it ends. A second process
-- that finds a live row refuses to run the audit (or to delete it). A row whose heartbeat
-- is older than the lease timeout, or whose process is gone from this host, is
-- abandoned (a killed crawl) and may be taken over.
CREATE TABLE audit_leases (
    audit_id     INTEGER PRIMARY KEY REFERENCES audits (id) ON DELETE CASCADE,
    token        TEXT    NOT NULL,   -- the owner's own random value: only it renews or releases
    pid          INTEGER NOT NULL,   -- the owner's process id
    host         TEXT    NOT NULL,   -- the owner's host name
    acquired_at  INTEGER NOT NULL,   -- ms since the epoch
    heartbeat_at INTEGER NOT NULL    -- ms since the epoch, renewed while the run lasts
);
