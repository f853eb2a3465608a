//! A Ballista scheduler or executor on this machine, from the published Ballista crates,
//! for `dustpan analyse --engine ballista` against a local cluster:
//!
//! ```text
//! dustpan-ballista scheduler PORT
//! dustpan-ballista executor SCHEDULER_PORT FLIGHT_PORT GRPC_PORT WORK_DIR [CONCURRENT_TASKS]
//! ```
//!
//! Both bind 127.0.0.1 only and log to standard error (`RUST_LOG`, `info` by default);
//! `scripts/ballista-cluster.sh` starts one scheduler and two executors. A real cluster
//! runs Ballista's own `ballista-scheduler` and `ballista-executor` programs (see
//! docs/scale.md).

use std::process::ExitCode;
use std::sync::Arc;

fn main() -> ExitCode {
    // Ballista's log: the scheduler's jobs and the executors' tasks at `info`, more
    // with `RUST_LOG` (`RUST_LOG=ballista=debug`).
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Ballista's planners recurse deeply on large plans.
        .thread_stack_size(32 * 1024 * 1024)
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("dustpan-ballista: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let result = runtime.block_on(run(&args));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("dustpan-ballista: {e}");
            ExitCode::from(2)
        }
    }
}

const USAGE: &str = "usage: dustpan-ballista scheduler PORT | \
                     dustpan-ballista executor SCHEDULER_PORT FLIGHT_PORT GRPC_PORT WORK_DIR [CONCURRENT_TASKS]";

fn port(s: Option<&String>) -> Result<u16, String> {
    s.ok_or_else(|| USAGE.to_owned())?
        .parse()
        .map_err(|e| format!("not a port: {e}\n{USAGE}"))
}

async fn run(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        Some("scheduler") => {
            use ballista_scheduler::cluster::BallistaCluster;
            use ballista_scheduler::config::SchedulerConfig;
            let port = port(args.get(1))?;
            let config = SchedulerConfig {
                bind_host: "127.0.0.1".into(),
                external_host: "127.0.0.1".into(),
                bind_port: port,
                ..SchedulerConfig::default()
            };
            let cluster = BallistaCluster::new_from_config(&config)
                .await
                .map_err(|e| e.to_string())?;
            let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
            eprintln!("dustpan-ballista: scheduler listening on {addr}");
            ballista_scheduler::scheduler_process::start_server(cluster, addr, Arc::new(config))
                .await
                .map_err(|e| e.to_string())
        }
        Some("executor") => {
            use ballista_executor::executor_process::{
                ExecutorProcessConfig, start_executor_process,
            };
            let scheduler_port = port(args.get(1))?;
            let flight = port(args.get(2))?;
            let grpc = port(args.get(3))?;
            let work = args.get(4).ok_or_else(|| USAGE.to_owned())?.clone();
            let vcores = match args.get(5) {
                Some(n) => n.parse().map_err(|e| format!("not a count: {e}"))?,
                None => 1,
            };
            let config = ExecutorProcessConfig {
                bind_host: "127.0.0.1".into(),
                external_host: Some("127.0.0.1".into()),
                port: flight,
                grpc_port: grpc,
                scheduler_host: "127.0.0.1".into(),
                scheduler_port,
                scheduler_connect_timeout_seconds: 30,
                vcores,
                work_dir: Some(work),
                ..ExecutorProcessConfig::default()
            };
            eprintln!("dustpan-ballista: executor on 127.0.0.1:{flight} (grpc {grpc})");
            start_executor_process(Arc::new(config))
                .await
                .map_err(|e| e.to_string())
        }
        _ => Err(USAGE.to_owned()),
    }
}
