//! Search-engine crawlers told apart by their user agent.

/// User-agent tokens (lower case) of search-engine crawlers, and the name each is
/// counted under.
const BOTS: &[(&str, &str)] = &[
    ("googlebot", "Googlebot"),
    ("google-inspectiontool", "Googlebot"),
    ("storebot-google", "Googlebot"),
    ("adsbot-google", "Googlebot"),
    ("mediapartners-google", "Googlebot"),
    ("googleother", "Googlebot"),
    ("bingbot", "Bingbot"),
    ("bingpreview", "Bingbot"),
    ("adidxbot", "Bingbot"),
    ("msnbot", "Bingbot"),
    ("yandexbot", "YandexBot"),
    ("yandex.com/bots", "YandexBot"),
    ("baiduspider", "Baiduspider"),
    ("duckduckbot", "DuckDuckBot"),
    ("applebot", "Applebot"),
    ("yahoo! slurp", "Yahoo Slurp"),
    ("seznambot", "SeznamBot"),
    ("naver.me/spd", "Yeti"),
    ("sogou", "Sogou"),
    ("petalbot", "PetalBot"),
    ("qwantbot", "Qwantbot"),
];

/// The search-engine crawler a user agent names (`Googlebot`, `Bingbot`, `YandexBot`,
/// `Baiduspider`, `DuckDuckBot`, `Applebot`, ...), if any. The user agent alone says
/// so: anyone can send it; a reverse and forward DNS check of the client's address (the
/// `botcheck` crate) verifies it.
pub fn search_engine_bot(agent: &str) -> Option<&'static str> {
    bot_token(agent).map(|i| BOTS[i].1)
}

/// The position in the token table of the first token `agent` contains.
fn bot_token(agent: &str) -> Option<usize> {
    let lower = agent.to_ascii_lowercase();
    BOTS.iter().position(|(token, _)| lower.contains(token))
}

/// The bot a user agent names, as a small number (the position of its name's first
/// token), to key compact per-client tables; [`bot_name`] turns it back into the name.
pub(crate) fn bot_id(agent: &str) -> Option<u8> {
    let i = bot_token(agent)?;
    let name = BOTS[i].1;
    let first = BOTS.iter().position(|(_, n)| *n == name).unwrap_or(i);
    u8::try_from(first).ok()
}

/// The name of a bot id from [`bot_id`].
pub(crate) fn bot_name(id: u8) -> &'static str {
    BOTS.get(usize::from(id)).map_or("", |(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::{bot_id, bot_name, search_engine_bot};

    #[test]
    fn bots_by_user_agent() {
        assert_eq!(
            search_engine_bot(
                "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
            ),
            Some("Googlebot")
        );
        assert_eq!(
            search_engine_bot(
                "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36"
            ),
            Some("Bingbot")
        );
        assert_eq!(
            search_engine_bot(
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36"
            ),
            None
        );
        assert_eq!(search_engine_bot("Dustpan/0.1 (+site audit)"), None);
        // Every token of one bot has the same id.
        let google = bot_id("Googlebot/2.1").unwrap();
        assert_eq!(
            bot_id("AdsBot-Google (+http://www.google.com/adsbot.html)"),
            Some(google)
        );
        assert_eq!(bot_name(google), "Googlebot");
        assert_ne!(bot_id("bingbot/2.0"), Some(google));
        assert_eq!(bot_name(bot_id("msnbot/2.0b").unwrap()), "Bingbot");
        assert_eq!(bot_id("Firefox"), None);
    }
}
