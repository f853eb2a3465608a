-- The counts of an audit's latest analysis under the default policy, so listing audits
-- shows findings and clusters without analysing every audit again. One row per audit,
-- replaced at each analysis; deleted with its audit.
CREATE TABLE analysis_summary (
    audit_id        INTEGER PRIMARY KEY REFERENCES audits (id) ON DELETE CASCADE,
    analysed_at     INTEGER NOT NULL,   -- ms since the Unix epoch
    policy          TEXT    NOT NULL,   -- the normalization policy's name (seo, ...)
    errors          INTEGER NOT NULL,   -- findings by severity
    warnings        INTEGER NOT NULL,
    notices         INTEGER NOT NULL,
    clusters        INTEGER NOT NULL,   -- clusters of two or more URLs
    clustered_urls  INTEGER NOT NULL    -- URLs in those clusters
);
