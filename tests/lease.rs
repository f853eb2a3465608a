//! One owner per running audit, and stored configurations shown before they run.
//!
//! A crawl holds its audit's lease in the database: a second `dustpan audit --resume`
//! (or `dustpan delete`) of the audit is refused while the first crawls, and the first
//! finishes normally; a lease left by a killed process is taken over once its heartbeat
//! is older than the timeout (`DUSTPAN_LEASE_TIMEOUT_SECS`), at once when its process is
//! gone from this host. `--like` prints the configuration it runs; a stored configuration
//! whose start URLs were edited is not run.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use store::{AuditId, AuditStatus, Store};

use crate::util::{Output, Site, drain, path, run};

const SEED: u64 = 11;

/// `dustpan ARGS` in the background with `envs` set (output captured).
fn spawn_with_env(args: &[String], envs: &[(&str, &str)]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_dustpan"))
        .args(args)
        .envs(envs.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dustpan starts")
}

/// Runs `dustpan ARGS` with `envs` set, to its end.
fn run_with_env(args: &[String], envs: &[(&str, &str)]) -> Output {
    let out = spawn_with_env(args, envs).wait_with_output().unwrap();
    Output {
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// `dustpan SUBCOMMAND ID --db FILE EXTRA...`.
fn on_audit(site: &Site, subcommand: &[&str], audit: AuditId, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = subcommand.iter().map(|s| (*s).to_owned()).collect();
    args.push(audit.to_string());
    args.extend(["--db".to_owned(), path(&site.db)]);
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args
}

/// Waits until `child` crawls (so the database is created and migrated), opens the
/// database, then waits until `child` holds the lease of its first audit with at least
/// `done` URLs stored; fails if it exits first.
fn wait_for_lease(site: &Site, child: &mut Child, done: u64) -> (Store, AuditId) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let exited_early = |child: &mut Child| {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("dustpan exited before the test could act: {status}");
        }
        assert!(Instant::now() < deadline, "no crawl under way");
    };
    while site.server.requests().len() < 3 {
        exited_early(child);
        std::thread::sleep(Duration::from_millis(10));
    }
    let store = site.store();
    loop {
        exited_early(child);
        if let Ok(audits) = site.rt.block_on(store_list(&store))
            && let Some(id) = audits.first().copied()
            && let Ok(Some(holder)) = site.rt.block_on(store.lease_holder(id))
            && site
                .rt
                .block_on(store.audit_summary(id))
                .unwrap()
                .states
                .done
                >= done
        {
            assert_eq!(holder.pid, child.id());
            return (store, id);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

async fn store_list(store: &Store) -> Result<Vec<AuditId>, store::StoreError> {
    Ok(store.list_audits().await?.iter().map(|a| a.id).collect())
}

/// Runs one SQL statement on the database, as a hand edit would.
fn edit(site: &Site, sql: &str) {
    site.rt.block_on(async {
        use sqlx::ConnectOptions;
        let mut conn = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&site.db)
            .busy_timeout(Duration::from_secs(30))
            .connect()
            .await
            .unwrap();
        sqlx::query(sqlx::AssertSqlSafe(sql.to_owned()))
            .execute(&mut conn)
            .await
            .unwrap();
    });
}

/// The expected refusal's text, up to the pid.
fn busy(audit: AuditId) -> String {
    format!("audit {audit} is being crawled by another process (pid ")
}

#[test]
fn a_second_process_is_refused_while_the_first_crawls() {
    let site = Site::start(fixture::generated_site(200, SEED));
    // Slow enough to act on while it runs: one request at a time, 40 per second.
    let args = site.audit_args(
        "https://example.test/",
        &["-q", "--concurrency", "1", "--rate", "40"],
    );
    let mut first = spawn_with_env(&args, &[]);
    let stdout = drain(first.stdout.take().unwrap());
    let stderr = drain(first.stderr.take().unwrap());
    let (store, audit) = wait_for_lease(&site, &mut first, 5);

    let second = run(&on_audit(&site, &["audit", "--resume"], audit, &["-q"]));
    assert_ne!(second.code, 0, "{}{}", second.stdout, second.stderr);
    let line = second.stderr.trim();
    assert!(
        line.starts_with(&format!("dustpan: {}{} on host ", busy(audit), first.id())),
        "{line}"
    );
    assert!(line.ends_with("; wait for it or stop it"), "{line}");
    assert_eq!(line.lines().count(), 1, "{line}");

    for force in [&[][..], &["--force"][..]] {
        let delete = run(&on_audit(&site, &["delete"], audit, force));
        assert_ne!(delete.code, 0, "{}{}", delete.stdout, delete.stderr);
        assert!(delete.stderr.contains(&busy(audit)), "{}", delete.stderr);
    }

    let status = first.wait().unwrap();
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    assert!(status.success(), "{status}\n{stdout}\n{stderr}");
    assert!(
        stdout.starts_with(&format!("Audit {audit} finished")),
        "{stdout}"
    );
    assert!(!stderr.contains("store writer"), "{stderr}");
    let summary = site.rt.block_on(store.audit_summary(audit)).unwrap();
    assert_eq!(summary.audit.status, AuditStatus::Finished);
    assert!(summary.states.done >= 200, "{:?}", summary.states);
    // Released at the end: the audit can be deleted now.
    assert_eq!(site.rt.block_on(store.lease_holder(audit)).unwrap(), None);
    let delete = run(&on_audit(&site, &["delete"], audit, &[]));
    assert_eq!(delete.code, 0, "{}", delete.stderr);
}

#[test]
fn a_killed_crawls_lease_is_taken_over_after_the_timeout() {
    const TIMEOUT: &str = "8";
    let site = Site::start(fixture::generated_site(200, SEED));
    let env = [(store::LEASE_TIMEOUT_ENV, TIMEOUT)];
    let args = site.audit_args(
        "https://example.test/",
        &["-q", "--concurrency", "1", "--rate", "40"],
    );
    let mut first = spawn_with_env(&args, &env);
    let (store, audit) = wait_for_lease(&site, &mut first, 5);
    first.kill().unwrap(); // SIGKILL: no release
    first.wait().unwrap();
    // The lease stays, with its last heartbeat. Its process is gone from this host, so
    // this host takes it over at once (tests/resume.rs resumes right after a kill);
    // from another host only the heartbeat's age tells. Make it another host's.
    edit(
        &site,
        &format!("UPDATE audit_leases SET host = 'elsewhere.test' WHERE audit_id = {audit}"),
    );
    let holder = site
        .rt
        .block_on(store.lease_holder(audit))
        .unwrap()
        .expect("the killed crawl's lease is still there");
    let resume = on_audit(&site, &["audit", "--resume"], audit, &["-q"]);
    let timeout_ms = 8_000;
    let fresh = store::now_ms() - holder.heartbeat_at < timeout_ms / 2;
    let early = run_with_env(&resume, &env);
    eprintln!(
        "lease: a resume right after the kill: {}",
        early.stderr.trim()
    );
    if fresh {
        assert_ne!(early.code, 0, "{}{}", early.stdout, early.stderr);
        assert!(
            early.stderr.contains(&format!(
                "{}{} on host elsewhere.test) since ",
                busy(audit),
                holder.pid
            )),
            "{}",
            early.stderr
        );
    }
    // Once the heartbeat is older than the timeout, the lease is abandoned.
    while store::now_ms() - holder.heartbeat_at <= timeout_ms + 200 {
        std::thread::sleep(Duration::from_millis(50));
    }
    let late = run_with_env(&resume, &env);
    assert_eq!(late.code, 0, "{}{}", late.stdout, late.stderr);
    assert!(
        late.stdout.starts_with(&format!(
            "Resuming audit {audit} with its stored configuration:"
        )) && late.stdout.contains(&format!("\nAudit {audit} finished")),
        "{}",
        late.stdout
    );
    assert!(
        late.stderr.contains(&format!(
            "taking over the lease of pid {} on host elsewhere.test",
            holder.pid
        )),
        "{}",
        late.stderr
    );
    assert_eq!(site.rt.block_on(store.lease_holder(audit)).unwrap(), None);
}

#[test]
fn like_prints_what_it_runs_and_refuses_an_edited_configuration() {
    let site = Site::start(fixture::generated_site(20, SEED));
    let out = run(&site.audit_args("https://example.test/", &["-q"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let audit = crate::util::audit_id(&out.stdout);
    let port = site.server.port();

    let like = on_audit(&site, &["audit", "--like"], audit, &["-q"]);
    let out = run(&like);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let resolves: Vec<String> = fixture::HOSTS
        .iter()
        .map(|host| format!("{host}:{port}:127.0.0.1"))
        .collect();
    let printed: Vec<&str> = out.stdout.lines().take(11).collect();
    assert_eq!(
        printed[..8],
        [
            format!("Starting a new audit with the configuration of audit {audit}:"),
            "  Start URLs    https://example.test/".to_owned(),
            "  Scope         subdomains no, any port no, extra hosts none".to_owned(),
            "  Include       none".to_owned(),
            "  Exclude       none".to_owned(),
            "  Sitemaps      none".to_owned(),
            format!("  Resolve       {}", resolves.join(" ")),
            "  CA certs      1 extra".to_owned(),
        ],
        "{}",
        out.stdout
    );
    assert!(printed[8].starts_with("  Robots.txt    obeyed; user agent "));
    assert!(
        printed[9].starts_with("  Limits        50000 URLs, depth 100, 8 in flight, "),
        "{}",
        printed[9]
    );
    let second = crate::util::audit_id(&out.stdout);
    assert_ne!(second, audit);

    // The list shows the stored start URLs and what else decides where requests go.
    let list = run(&["audits".to_owned(), "--db".to_owned(), path(&site.db)]);
    assert_eq!(list.code, 0, "{}", list.stderr);
    let row = |id: AuditId| {
        list.stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(&id.to_string()))
            .unwrap_or_else(|| panic!("no audit {id} in:\n{}", list.stdout))
            .to_owned()
    };
    assert!(
        row(audit).ends_with(&format!(
            "https://example.test/ [resolve: {}] [1 extra CA]",
            resolves.join(" ")
        )),
        "{}",
        list.stdout
    );

    // Start URLs edited in the database: neither a re-run nor a resume runs them.
    edit(
        &site,
        &format!(
            "UPDATE audits SET status = 'cancelled',
             config = json_set(config, '$.data.start_urls', json_array('https://elsewhere.test/'))
             WHERE id = {audit}"
        ),
    );
    let requests = site.server.requests().len();
    let refusal = format!(
        "dustpan: audit {audit}: its stored configuration starts at https://elsewhere.test/ but the audit at https://example.test/; the configuration was changed and is not run"
    );
    for args in [
        like.clone(),
        on_audit(&site, &["audit", "--resume"], audit, &["-q"]),
    ] {
        let out = run(&args);
        assert_eq!(out.code, 2, "{args:?}: {}{}", out.stdout, out.stderr);
        assert_eq!(out.stderr.trim(), refusal, "{args:?}");
        assert_eq!(out.stdout, "", "{args:?}");
    }
    assert_eq!(site.server.requests().len(), requests, "nothing requested");
    let store = site.store();
    assert_eq!(site.rt.block_on(store.list_audits()).unwrap().len(), 2);
    assert_eq!(site.rt.block_on(store.lease_holder(audit)).unwrap(), None);
    let list = run(&["audits".to_owned(), "--db".to_owned(), path(&site.db)]);
    let line = list
        .stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(&audit.to_string()))
        .unwrap();
    assert!(
        line.contains("https://elsewhere.test/ [not run: audit "),
        "{}",
        list.stdout
    );
}

/// A resume runs the configuration stored in the database file, which anyone holding
/// the file may have changed: it is printed before the crawl, as `--like` prints it,
/// what decides where requests go included.
#[test]
fn resume_prints_the_stored_configuration_it_runs() {
    let site = Site::start(fixture::generated_site(20, SEED));
    let out = run(&site.audit_args("https://example.test/", &["-q"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let audit = crate::util::audit_id(&out.stdout);
    edit(
        &site,
        &format!(
            "UPDATE audits SET status = 'cancelled',
             config = json_set(config, '$.data.exclude_patterns', json_array('/private/*'),
                               '$.data.allow_internal', json('true'),
                               '$.data.user_agent', 'Edited/1.0')
             WHERE id = {audit}"
        ),
    );
    let out = run(&on_audit(&site, &["audit", "--resume"], audit, &["-q"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0],
        format!("Resuming audit {audit} with its stored configuration:"),
        "{}",
        out.stdout
    );
    for expected in [
        "  Start URLs    https://example.test/",
        "  Exclude       /private/*",
        "  Addresses     internal addresses allowed (--allow-internal)",
    ] {
        assert!(
            lines.contains(&expected),
            "{expected:?} in:\n{}",
            out.stdout
        );
    }
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("  Robots.txt    obeyed; user agent Edited/1.0")),
        "{}",
        out.stdout
    );
}
