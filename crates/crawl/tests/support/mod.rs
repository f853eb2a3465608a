//! A small HTTP/1.1 server on 127.0.0.1:0 for the crawl tests: routes by Host and path
//! through a closure, keeps connections alive, logs every request, and can misbehave
//! (hang, drop the connection, stream a huge body).

#![allow(dead_code)]

pub mod audit;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// One logged request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The Host header without the port.
    pub host: String,
    /// Path and query.
    pub path: String,
    /// The User-Agent header.
    pub user_agent: String,
}

/// What the server answers.
pub enum Reply {
    /// A complete response.
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// Send the head, then nothing, ever.
    Hang,
    /// Send the head with a Content-Length, part of the body, then close.
    DropMidBody { declared: usize, sent: Vec<u8> },
    /// Close without answering.
    Close,
    /// An HTML page sent a few bytes at a time: `body` in `steps` pieces, `interval`
    /// apart (a drip page: slow, but never idle long enough for a read timeout).
    Drip {
        body: Vec<u8>,
        steps: usize,
        interval: Duration,
    },
    /// A body of `total` bytes made of `chunk` repeated.
    Stream {
        headers: Vec<(String, String)>,
        chunk: Vec<u8>,
        total: usize,
    },
}

impl Reply {
    /// 200 text/html.
    pub fn html(body: impl Into<String>) -> Self {
        Reply::Full {
            status: 200,
            headers: vec![("Content-Type".into(), "text/html; charset=utf-8".into())],
            body: body.into().into_bytes(),
        }
    }

    /// A status with headers and an empty body.
    pub fn status(status: u16, headers: &[(&str, &str)]) -> Self {
        Reply::Full {
            status,
            headers: headers
                .iter()
                .map(|(k, v)| ((*k).into(), (*v).into()))
                .collect(),
            body: Vec::new(),
        }
    }

    /// 200 with a content type.
    pub fn bytes(content_type: &str, body: Vec<u8>) -> Self {
        Reply::Full {
            status: 200,
            headers: vec![("Content-Type".into(), content_type.into())],
            body,
        }
    }

    /// 404.
    pub fn not_found() -> Self {
        Reply::Full {
            status: 404,
            headers: vec![("Content-Type".into(), "text/plain".into())],
            body: b"not found".to_vec(),
        }
    }
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// A running server.
#[derive(Clone)]
pub struct Server {
    pub addr: SocketAddr,
    log: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    /// Starts a server answering with the handler `make` builds from the server's port.
    pub async fn start<H>(make: impl FnOnce(u16) -> H) -> Self
    where
        H: Fn(&Request) -> Reply + Send + Sync + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let log = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(make(addr.port()));
        let server_log = Arc::clone(&log);
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let handler = Arc::clone(&handler);
                let log = Arc::clone(&server_log);
                tokio::spawn(async move {
                    let _ = serve(stream, handler, log).await;
                });
            }
        });
        Self { addr, log }
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Every request so far.
    pub fn log(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }

    /// How many times `host` + `path` was requested.
    pub fn count(&self, host: &str, path: &str) -> usize {
        self.log()
            .iter()
            .filter(|r| r.host == host && r.path == path)
            .count()
    }
}

async fn serve(
    stream: TcpStream,
    handler: Arc<Handler>,
    log: Arc<Mutex<Vec<Request>>>,
) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    // A TLS ClientHello (https:// variants of the start URL): refuse at once.
    if reader.fill_buf().await?.first() == Some(&0x16) {
        return Ok(());
    }
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let mut parts = line.split_whitespace();
        let (Some(_method), Some(path)) = (parts.next(), parts.next()) else {
            return Ok(());
        };
        let path = path.to_owned();
        let mut host = String::new();
        let mut user_agent = String::new();
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).await? == 0 {
                return Ok(());
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("host") {
                    let value = value.trim();
                    host = value.rsplit_once(':').map_or(value, |(h, _)| h).to_owned();
                } else if name.eq_ignore_ascii_case("user-agent") {
                    user_agent = value.trim().to_owned();
                }
            }
        }
        let request = Request {
            host,
            path,
            user_agent,
        };
        log.lock().unwrap().push(request.clone());
        match handler(&request) {
            Reply::Full {
                status,
                headers,
                body,
            } => {
                // One write: a head and a body in two writes meet Nagle's algorithm and
                // the client's delayed ACK (a 40 ms stall per response).
                let mut response = head(status, &headers, body.len());
                response.extend_from_slice(&body);
                write.write_all(&response).await?;
            }
            Reply::Hang => {
                write
                    .write_all(&head(
                        200,
                        &[("Content-Type".into(), "text/html".into())],
                        1000,
                    ))
                    .await?;
                write.write_all(b"<html><body>").await?;
                tokio::time::sleep(Duration::from_secs(3600)).await;
                return Ok(());
            }
            Reply::DropMidBody { declared, sent } => {
                write
                    .write_all(&head(
                        200,
                        &[("Content-Type".into(), "text/html".into())],
                        declared,
                    ))
                    .await?;
                write.write_all(&sent).await?;
                write.flush().await?;
                return Ok(());
            }
            Reply::Close => return Ok(()),
            Reply::Drip {
                body,
                steps,
                interval,
            } => {
                write
                    .write_all(&head(
                        200,
                        &[("Content-Type".into(), "text/html".into())],
                        body.len(),
                    ))
                    .await?;
                let piece = body.len().div_ceil(steps.max(1)).max(1);
                for part in body.chunks(piece) {
                    tokio::time::sleep(interval).await;
                    write.write_all(part).await?;
                    write.flush().await?;
                }
            }
            Reply::Stream {
                headers,
                chunk,
                total,
            } => {
                write.write_all(&head(200, &headers, total)).await?;
                let mut sent = 0;
                while sent < total {
                    let n = chunk.len().min(total - sent);
                    write.write_all(&chunk[..n]).await?;
                    sent += n;
                }
            }
        }
    }
}

fn head(status: u16, headers: &[(String, String)], length: usize) -> Vec<u8> {
    let mut head = format!("HTTP/1.1 {status} X\r\nContent-Length: {length}\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    head.into_bytes()
}

/// Crawls `config` into a new store in a temporary folder (kept alive by the returned
/// guard).
pub async fn crawl(
    config: &crawl::CrawlConfig,
) -> (tempfile::TempDir, store::Store, crawl::CrawlSummary) {
    let dir = tempfile::tempdir().unwrap();
    let store = store::Store::open(&dir.path().join("audit.sqlite"))
        .await
        .unwrap();
    let (progress, _rx) = tokio::sync::watch::channel(crawl::Progress::default());
    let summary = crawl::start_audit(&store, config, &progress, &crawl::CancellationToken::new())
        .await
        .unwrap();
    (dir, store, summary)
}

/// The audit's URLs by their `url` column.
pub async fn urls(
    store: &store::Store,
    summary: &crawl::CrawlSummary,
) -> std::collections::HashMap<String, store::UrlRow> {
    store
        .urls(summary.audit)
        .await
        .unwrap()
        .into_iter()
        .map(|u| (u.url.clone(), u))
        .collect()
}
