//! Several lists merged into the URLs of one list audit: each URL once (its requests
//! summed over the lists), at most a given number of URLs, and the bot clients of every
//! access log in one table, so that each address is checked once.

use std::collections::HashMap;
use std::net::IpAddr;

use crate::{BotClient, Hits, Listed, UrlList};

/// The URLs of several lists, merged in the order read.
#[derive(Debug, Clone, Default)]
pub struct Merged {
    max_urls: usize,
    index: HashMap<String, usize>,
    urls: Vec<Listed>,
    clients: Vec<BotClient>,
    client_index: HashMap<(Option<IpAddr>, &'static str), u32>,
}

/// What one list added to a [`Merged`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Added {
    /// URLs new to the merged list.
    pub kept: u64,
    /// URLs of the list left out: the merged list was full.
    pub left_out: u64,
    /// Requests counted for the URLs kept (new or already listed).
    pub requests: u64,
    /// Of those, requests whose user agent names a search-engine bot.
    pub bot_requests: u64,
}

impl Merged {
    /// An empty list that keeps at most `max_urls` URLs.
    pub fn new(max_urls: usize) -> Self {
        Merged {
            max_urls,
            ..Merged::default()
        }
    }

    /// URLs that can still be added.
    pub fn room(&self) -> usize {
        self.max_urls.saturating_sub(self.urls.len())
    }

    /// The URLs, in order of first appearance; their [`Hits::bots`] refer to
    /// [`clients`](Self::clients).
    pub fn urls(&self) -> &[Listed] {
        &self.urls
    }

    /// The bot clients of every list added (each address and bot once).
    pub fn clients(&self) -> &[BotClient] {
        &self.clients
    }

    /// Adds `list`'s URLs: a URL listed before gets its requests added, a new one is
    /// kept while there is room.
    pub fn add(&mut self, list: UrlList) -> Added {
        // The list's clients in the merged table, added when a URL kept has requests
        // from them.
        let mut clients: Vec<Option<u32>> = vec![None; list.clients.len()];
        let mut added = Added::default();
        for listed in list.urls {
            let i = match self.index.get(&listed.url) {
                Some(&i) => i,
                None if self.urls.len() < self.max_urls => {
                    self.index.insert(listed.url.clone(), self.urls.len());
                    self.urls.push(Listed {
                        url: listed.url.clone(),
                        line: listed.line,
                        hits: Hits::default(),
                        search_console: None,
                    });
                    added.kept += 1;
                    self.urls.len() - 1
                }
                None => {
                    added.left_out += 1;
                    continue;
                }
            };
            if let Some(facts) = &listed.search_console {
                match &mut self.urls[i].search_console {
                    Some(known) => known.merge(facts),
                    slot => *slot = Some(facts.clone()),
                }
            }
            added.requests += listed.hits.requests;
            added.bot_requests += listed.hits.bot_requests();
            self.urls[i].hits.requests += listed.hits.requests;
            for h in &listed.hits.bots {
                let (Some(slot), Some(c)) = (
                    clients.get_mut(h.client as usize),
                    list.clients.get(h.client as usize),
                ) else {
                    continue;
                };
                let client = match *slot {
                    Some(client) => client,
                    None => {
                        let client =
                            Self::client(&mut self.clients, &mut self.client_index, c.ip, c.bot);
                        *slot = Some(client);
                        client
                    }
                };
                self.urls[i].hits.add_bot(client, h.requests);
                if let Some(c) = self.clients.get_mut(client as usize) {
                    c.requests += u64::from(h.requests);
                }
            }
        }
        added
    }

    /// The index of the client (`ip`, `bot`) in `clients`, added when new.
    fn client(
        clients: &mut Vec<BotClient>,
        index: &mut HashMap<(Option<IpAddr>, &'static str), u32>,
        ip: Option<IpAddr>,
        bot: &'static str,
    ) -> u32 {
        *index.entry((ip, bot)).or_insert_with(|| {
            clients.push(BotClient {
                ip,
                bot,
                requests: 0,
            });
            u32::try_from(clients.len() - 1).unwrap_or(u32::MAX)
        })
    }
}
