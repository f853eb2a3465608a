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
/// so: anyone can send it, and only a reverse DNS lookup of the client's address would
/// verify it.
pub fn search_engine_bot(agent: &str) -> Option<&'static str> {
    let lower = agent.to_ascii_lowercase();
    BOTS.iter()
        .find(|(token, _)| lower.contains(token))
        .map(|&(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::search_engine_bot;

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
    }
}
