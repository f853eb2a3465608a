-- The page's meta description: the first <meta name="description" content> in <head>,
-- whitespace-collapsed and capped like the title. NULL when the page has none, and for
-- pages stored before it was recorded.
ALTER TABLE fetches ADD COLUMN meta_description TEXT;
