//! The requests an access log holds for the audit's URLs, as a list audit of the log
//! hands them to the analysis: per URL, split by who sent them.

use crate::input::UrlId;
use serde::{Deserialize, Serialize};

/// The requests an access log holds for one URL. Bots are told by user agent, then by
/// a reverse and forward DNS check of their address: verified, unverified (no answer,
/// no documented check, not looked up) or fake. The four counts are disjoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogHit {
    /// The URL.
    pub url: UrlId,
    /// Requests from search-engine bots whose address the check verified.
    pub verified_bot_requests: u64,
    /// Requests from search-engine bots by user agent, not verified.
    pub unverified_bot_requests: u64,
    /// Requests with a bot's user agent from an address that failed the check.
    pub fake_bot_requests: u64,
    /// Every other request.
    pub other_requests: u64,
}

impl LogHit {
    pub(crate) fn requests(&self) -> LogRequests {
        LogRequests {
            verified_bots: self.verified_bot_requests,
            unverified_bots: self.unverified_bot_requests,
            fake_bots: self.fake_bot_requests,
            others: self.other_requests,
        }
    }
}

/// Requests of an access log split as [`LogHit`] splits them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogRequests {
    /// From search-engine bots whose address the DNS check verified.
    pub verified_bots: u64,
    /// From search-engine bots by user agent, not verified.
    pub unverified_bots: u64,
    /// With a bot's user agent from an address that failed the check.
    pub fake_bots: u64,
    /// Every other request.
    pub others: u64,
}

impl LogRequests {
    /// Every request.
    pub fn total(&self) -> u64 {
        self.verified_bots + self.unverified_bots + self.fake_bots + self.others
    }

    pub(crate) fn add(&mut self, other: LogRequests) {
        self.verified_bots += other.verified_bots;
        self.unverified_bots += other.unverified_bots;
        self.fake_bots += other.fake_bots;
        self.others += other.others;
    }
}
