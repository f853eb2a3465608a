//! Bots checked against a real DNS server on loopback (the fixture's): reverse and
//! forward lookups over UDP, NXDOMAIN as an answer, and name servers that never answer.

#![allow(clippy::unwrap_used)]

use std::net::IpAddr;
use std::time::{Duration, Instant};

use botcheck::{Check, Client, Options, Outcome, Summary, Verifier};
use fixture::{DnsServer, DnsZone, SilentDns};

fn ip(last: u8) -> IpAddr {
    IpAddr::from([127, 0, 0, last])
}

fn googlebot(last: u8, requests: u64) -> Client<'static> {
    Client {
        ip: Some(ip(last)),
        bot: "Googlebot",
        requests,
    }
}

/// The zone of the tests: 127.0.0.2 is Googlebot; 127.0.0.3 names a host outside
/// Google's domains; 127.0.0.4 names a googlebot.com host that resolves elsewhere;
/// 127.0.0.5 has no name.
fn zone() -> DnsZone {
    DnsZone::new()
        .ptr(ip(2), "crawl-127-0-0-2.googlebot.com")
        .address("crawl-127-0-0-2.googlebot.com", ip(2))
        .ptr(ip(3), "evil.example")
        .address("evil.example", ip(3))
        .ptr(ip(4), "crawl-127-0-0-4.googlebot.com")
        .address("crawl-127-0-0-4.googlebot.com", ip(99))
        .ptr(ip(6), "evilgooglebot.com")
        .address("evilgooglebot.com", ip(6))
}

#[tokio::test]
async fn reverse_then_forward_lookups_tell_verified_from_fake() {
    let server = DnsServer::start(zone()).await.unwrap();
    let verifier = Verifier::with_server(server.addr(), Options::default()).unwrap();
    let clients = [
        googlebot(2, 5),
        googlebot(3, 4),
        googlebot(4, 3),
        googlebot(5, 2),
        googlebot(6, 1),
        // The verified address, claimed by another bot: not in Bing's domain.
        Client {
            ip: Some(ip(2)),
            bot: "Bingbot",
            requests: 1,
        },
        // No documented check, no address: never looked up.
        Client {
            ip: Some(ip(7)),
            bot: "DuckDuckBot",
            requests: 9,
        },
        Client {
            ip: None,
            bot: "Googlebot",
            requests: 9,
        },
    ];
    let report = verifier.check(&clients).await;
    assert_eq!(
        report.checks,
        [
            Check::Verified,
            Check::OtherDomain,
            Check::AddressMismatch,
            Check::NoName,
            Check::OtherDomain,
            Check::OtherDomain,
            Check::NoCheck,
            Check::NoAddress,
        ]
    );
    let outcomes: Vec<Outcome> = report.checks.iter().map(|c| c.outcome()).collect();
    assert_eq!(
        outcomes[..4],
        [
            Outcome::Verified,
            Outcome::Fake,
            Outcome::Fake,
            Outcome::Fake
        ]
    );
    assert_eq!(
        report.summary,
        Summary {
            verified: 1,
            fake: 5,
            no_check: 2,
            ..Summary::default()
        }
    );
    assert!(server.queries() >= 5, "{}", server.queries());
}

#[tokio::test]
async fn the_addresses_with_the_most_requests_are_looked_up_first() {
    let server = DnsServer::start(zone()).await.unwrap();
    let options = Options {
        max_ips: 2,
        ..Options::default()
    };
    let verifier = Verifier::with_server(server.addr(), options).unwrap();
    let report = verifier
        .check(&[googlebot(5, 1), googlebot(2, 10), googlebot(3, 7)])
        .await;
    assert_eq!(
        report.checks,
        [Check::OverLimit, Check::Verified, Check::OtherDomain]
    );
    assert_eq!(report.summary.over_limit, 1);
}

/// Many bot addresses and a name server that never answers (or nothing listening):
/// every client unverified, and the check gives up after the first unanswered lookups
/// instead of waiting for each.
#[tokio::test]
async fn without_answers_every_bot_stays_unverified_and_the_check_ends_quickly() {
    let silent = SilentDns::start().unwrap();
    let closed = {
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        socket.local_addr().unwrap()
    };
    let clients: Vec<Client<'static>> = (1..=200u8).map(|i| googlebot(i, 1)).collect();
    for server in [silent.addr().unwrap(), closed] {
        let options = Options {
            timeout: Duration::from_millis(500),
            concurrency: 8,
            give_up_after: 8,
            ..Options::default()
        };
        let verifier = Verifier::with_server(server, options).unwrap();
        let started = Instant::now();
        let report = verifier.check(&clients).await;
        let took = started.elapsed();
        assert!(
            report.checks.iter().all(|c| *c == Check::NoAnswer),
            "{:?}",
            report.summary
        );
        assert_eq!(report.summary.no_answer, 200);
        assert!(took < Duration::from_secs(5), "took {took:?}");
    }
}

/// An address whose reverse lookup lists many names in the bot's domains, none of
/// which resolves back to it: only the first few are looked up forward.
#[tokio::test]
async fn an_address_with_many_names_costs_a_few_lookups() {
    let mut zone = DnsZone::new();
    // Twelve: the answer must fit one UDP message of the loopback name server.
    for n in 0..12 {
        zone = zone.ptr(ip(77), &format!("c{n}.googlebot.com"));
    }
    let server = DnsServer::start(zone).await.unwrap();
    let verifier = Verifier::with_server(server.addr(), Options::default()).unwrap();
    let report = verifier.check(&[googlebot(77, 3)]).await;
    assert_eq!(report.checks, [Check::AddressMismatch]);
    let queries = server.queries();
    assert!(
        queries <= 1 + botcheck::MAX_NAMES_PER_IP as u64,
        "{queries} queries for one address"
    );
}

/// The check's deadline ends lookups in flight: with a name server that never answers
/// and a per-query time-out longer than the deadline, the check ends at the deadline.
#[tokio::test]
async fn the_deadline_ends_lookups_in_flight() {
    let silent = SilentDns::start().unwrap();
    let clients: Vec<Client<'static>> = (1..=20u8).map(|i| googlebot(i, 1)).collect();
    let options = Options {
        timeout: Duration::from_secs(5),
        concurrency: 8,
        give_up_after: 1_000,
        max_duration: Duration::from_millis(500),
        ..Options::default()
    };
    let verifier = Verifier::with_server(silent.addr().unwrap(), options).unwrap();
    let started = Instant::now();
    let report = verifier.check(&clients).await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert_eq!(report.summary.no_answer, 20);
}
