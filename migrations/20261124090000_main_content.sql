-- Main content: each page's first <h1> and its visible text outside site chrome, cut
-- into text blocks (extract::blocks, format version 1: per block its hash, word count
-- and shingle hashes). The analysis learns the site's template from the blocks that
-- recur across pages and fingerprints what remains: the page's main content.
ALTER TABLE fetches ADD COLUMN h1 TEXT;
ALTER TABLE fetches ADD COLUMN blocks BLOB;
