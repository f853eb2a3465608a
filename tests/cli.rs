//! Argument handling shared by the subcommands.

use crate::util::dustpan;

#[test]
fn resume_takes_no_other_crawl_option() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let out = dustpan(
        &[
            "audit",
            "--resume",
            "1",
            "--rate",
            "3",
            "--db",
            db.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("cannot be used with"), "{}", out.stderr);
}

#[test]
fn resuming_an_unknown_audit_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let out = dustpan(
        &[
            "audit",
            "--resume",
            "42",
            "--db",
            db.to_str().unwrap(),
            "-q",
        ],
        "",
    );
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("42"), "{}", out.stderr);
}

#[test]
fn a_start_url_that_is_not_http_is_rejected_before_crawling() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let out = dustpan(
        &[
            "audit",
            "ftp://example.com/",
            "--db",
            db.to_str().unwrap(),
            "-q",
        ],
        "",
    );
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("not an http(s) URL"), "{}", out.stderr);
}

#[test]
fn audits_on_an_empty_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let out = dustpan(&["audits", "--db", db.to_str().unwrap()], "");
    assert_eq!(out.code, 0);
    assert!(out.stderr.contains("no audits"), "{}", out.stderr);
}
