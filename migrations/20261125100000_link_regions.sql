-- Where in its page each link sits, by HTML5 semantics (extract::LinkRegion): the
-- innermost of <nav>, <aside>, the page's <header>/<footer>, and <main>/<article>
-- around it, or 'body' when none is. NULL for links stored before it was recorded.
-- A link on most pages of a site in one region is the site's template: one edit there
-- fixes it everywhere.
ALTER TABLE links ADD COLUMN region TEXT
    CHECK (region IN ('navigation', 'header', 'footer', 'sidebar', 'main', 'body'));
