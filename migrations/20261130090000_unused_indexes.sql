-- Indexes no statement uses, dropped: each one cost the crawl writing in random order.
--
-- Links are kept in one order only: by the page they are on (the table's primary key).
-- No statement looks a link up by its target: the analysis reads every link of an audit
-- in page order and builds the inlink index in memory, and the queries naming a target
-- (anchors quoted by findings) scan the audit's links by their key. An index by target
-- cost the crawl most of its writing: its entries arrive in random order, so every
-- commit rewrote a large share of its pages (the write-ahead log, then the checkpoint),
-- and that share grew with the site.
DROP INDEX IF EXISTS links_to;
DROP INDEX IF EXISTS rendered_links_to;
-- URLs are looked up by their identity (`url_rfc3986`, unique) and their id, never by
-- their seo form: the analysis groups the seo forms in memory.
DROP INDEX IF EXISTS urls_seo;
