-- Access-log requests split by a DNS check of the bots' addresses: a request whose
-- user agent names a search-engine bot is verified (its address's reverse DNS name is
-- in the bot's documented domains and resolves back to the address), fake (the check
-- failed: such requests are not counted as bot requests) or unverified (no answer, no
-- documented check, or not looked up). The requests stored before the check were told
-- by user agent only: they are the unverified ones.
ALTER TABLE log_hits RENAME COLUMN bot_requests TO unverified_bot_requests;
ALTER TABLE log_hits ADD COLUMN verified_bot_requests INTEGER NOT NULL DEFAULT 0
    CHECK (verified_bot_requests >= 0);
ALTER TABLE log_hits ADD COLUMN fake_bot_requests INTEGER NOT NULL DEFAULT 0
    CHECK (fake_bot_requests >= 0);
