//! The plans on a real Ballista cluster (one scheduler, two executors, each its own
//! process on 127.0.0.1, from the published Ballista crates) give the embedded
//! engine's clusters and preferred URLs on the fixture audit's Parquet files.
#![cfg(feature = "ballista")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The fixture audit's tables, as `dustpan export --parquet` writes them.
fn fixture_parquet() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fixture")
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The cluster's processes, ended when the test ends, and the folder of their logs.
struct Cluster {
    children: Vec<Child>,
    scheduler: u16,
    logs: PathBuf,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Cluster {
    /// Each process's warnings and errors and the end of its log, for a failure message.
    fn logs(&self) -> String {
        let mut out = String::new();
        for name in ["scheduler", "executor-0", "executor-1"] {
            let path = self.logs.join(format!("{name}.log"));
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            out.push_str(&format!("==> {} (warnings and errors)\n", path.display()));
            for l in lines
                .iter()
                .filter(|l| l.contains(" WARN ") || l.contains(" ERROR "))
                .take(40)
            {
                out.push_str(l);
                out.push('\n');
            }
            out.push_str(&format!("==> {} (last lines)\n", path.display()));
            for l in &lines[lines.len().saturating_sub(20)..] {
                out.push_str(l);
                out.push('\n');
            }
        }
        out
    }
}

fn wait_for(port: u16, what: &str) {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let start = Instant::now();
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{what} did not listen on {addr}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// One process of the cluster, its log (standard error) in `logs/NAME.log`.
fn spawn(logs: &Path, name: &str, args: &[&str]) -> Child {
    let log = std::fs::File::create(logs.join(format!("{name}.log"))).unwrap();
    Command::new(env!("CARGO_BIN_EXE_dustpan-ballista"))
        .args(args)
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap()
}

fn start_cluster(work: &Path) -> Cluster {
    let scheduler = free_port();
    let logs = work.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let mut cluster = Cluster {
        children: Vec::new(),
        scheduler,
        logs,
    };
    let port = scheduler.to_string();
    cluster
        .children
        .push(spawn(&cluster.logs, "scheduler", &["scheduler", &port]));
    wait_for(scheduler, "the scheduler");
    for k in 0..2 {
        let (flight, grpc) = (free_port(), free_port());
        let dir = work.join(format!("executor-{k}"));
        std::fs::create_dir_all(&dir).unwrap();
        let args = [
            "executor",
            &port,
            &flight.to_string(),
            &grpc.to_string(),
            dir.to_str().unwrap(),
            "2",
        ];
        let child = spawn(&cluster.logs, &format!("executor-{k}"), &args);
        cluster.children.push(child);
        wait_for(flight, "an executor");
    }
    cluster
}

/// The Ballista run's deadline: the fixture takes under a minute on two cores.
const DEADLINE: Duration = Duration::from_secs(300);

#[test]
fn ballista_clusters_as_the_embedded_engine() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = start_cluster(dir.path());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(32 * 1024 * 1024)
        .build()
        .unwrap();
    let input = fixture_parquet();
    let params = dataflow::Params::default();
    let (embedded, embedded_members) = rt.block_on(async {
        let ctx = dataflow::embedded(64 << 20, &dir.path().join("spill"), 2).unwrap();
        let c = dataflow::cluster(&ctx, &input, &dir.path().join("work-embedded"), &params)
            .await
            .unwrap();
        let m = dataflow::read_members(&ctx, &c).await.unwrap();
        (c, m)
    });
    let remote = rt.block_on(async {
        tokio::time::timeout(DEADLINE, async {
            let ctx = dataflow::ballista(&format!("127.0.0.1:{}", cluster.scheduler)).await?;
            let c =
                dataflow::cluster(&ctx, &input, &dir.path().join("work-ballista"), &params).await?;
            let m = dataflow::read_members(&ctx, &c).await?;
            Ok::<_, dataflow::DataflowError>((c, m))
        })
        .await
    });
    let (remote, remote_members) = match remote {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => panic!("the Ballista run failed: {e}\n{}", cluster.logs()),
        Err(_) => panic!(
            "the Ballista run did not finish in {DEADLINE:?}\n{}",
            cluster.logs()
        ),
    };
    assert!(embedded_members.len() > 10, "{embedded:?}");
    assert_eq!(embedded.clusters, remote.clusters);
    assert_eq!(embedded.clustered_urls, remote.clustered_urls);
    assert_eq!(embedded.merges, remote.merges);
    assert_eq!(embedded_members, remote_members);
    drop(cluster);
}
