//! `dustpan migrate` on the fixture's Before and After sites: the pages After still
//! serves are kept, `/careers` (gone in After) is unmatched and listed with its inlinks,
//! `--out` writes the mapping and the redirect map for every server, and the map
//! simulates clean on the After audit; edited by hand (`dustpan simulate NEW --plan DIR
//! --migration`), each bad row is reported.

use fixture::SiteVariant;

use crate::util::{Site, path, run};

const START: &str = "https://example.test/";

#[test]
fn a_migration_between_the_before_and_after_sites_keeps_their_pages_and_lists_what_is_gone() {
    let site = Site::quiet();
    let old = site.audit(START, &["-q", "--no-dust-learning"]);
    site.server.set_variant(SiteVariant::After);
    let new = site.audit(START, &["-q", "--no-dust-learning"]);

    let dir = tempfile::tempdir().unwrap();
    let db = path(&site.db);
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a = vec![
            "migrate".to_owned(),
            old.to_string(),
            new.to_string(),
            "--db".to_owned(),
            db.clone(),
        ];
        a.extend(extra.iter().map(|s| (*s).to_owned()));
        a
    };
    let out = run(&args(&["--json", "--out", &path(dir.path())]));
    // Exit 1: an old page is unmatched.
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let m: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    // The document is the type its schema is generated from (docs/json/v1/), whole.
    let typed: view::migrate::MigrationReport = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), m);
    // Two of Before's pages are no page in After (/shoes/ and
    // www.example.test/contact): the map is not empty.
    assert!(!typed.migration.fix_files().redirects.is_empty());
    // The map Dustpan wrote, simulated on the After audit: clean.
    let sim = &m["simulation"];
    assert_eq!(sim["problems"], serde_json::json!([]), "{sim:#}");
    assert_eq!(
        sim["applied"]["redirects"].as_u64().unwrap(),
        typed.migration.fix_files().redirects.len() as u64
    );
    let rows = m["rows"].as_array().unwrap();
    let row = |url: &str| {
        rows.iter()
            .find(|r| r["old_url"] == url)
            .unwrap_or_else(|| panic!("{url} not mapped: {rows:#?}"))
    };
    let careers = row("https://example.test/careers");
    assert_eq!(careers["basis"]["by"], "unmatched");
    assert!(careers["new_url"].is_null());
    assert!(careers["inlinks"].as_u64().unwrap() > 0, "{careers}");
    let kept = row("https://example.test/shoes");
    assert_eq!(kept["basis"]["by"], "same_url");
    assert_eq!(kept["new_url"], "https://example.test/shoes");
    let kept_count = rows
        .iter()
        .filter(|r| r["basis"]["by"] == "same_url")
        .count();
    assert!(kept_count > 20, "{kept_count} kept");

    let csv = std::fs::read_to_string(dir.path().join("migration.csv")).unwrap();
    assert!(csv.starts_with("old_url,new_url,confidence,basis,inlinks,log_requests\n"));
    assert!(
        csv.contains("https://example.test/careers,,0,no match,"),
        "{csv}"
    );
    for file in [
        "redirect_map.csv",
        "redirects.nginx.conf",
        "redirects.apache.conf",
    ] {
        assert!(dir.path().join(file).is_file(), "{file}");
    }

    // The terminal report: counts, the unmatched page with its inlinks, and the map's
    // simulation.
    let out = run(&args(&[]));
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("unmatched"), "{}", out.stdout);
    assert!(
        out.stdout.contains(&format!("simulated on audit {new}:"))
            && out.stdout.contains("clean: the plan creates no problem"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("https://example.test/careers"),
        "{}",
        out.stdout
    );
    // A new site of three of the old one's URLs (a list audit): the old URL variants of
    // /shoes are mapped, and the map, redirects to be written this time, simulates
    // clean on it.
    site.server.set_variant(SiteVariant::Before);
    let list = dir.path().join("three.txt");
    std::fs::write(
        &list,
        "https://example.test/shoes\nhttps://example.test/shoes/\nhttps://example.test/chain/start\n",
    )
    .unwrap();
    let mut audit = vec![
        "audit".to_owned(),
        "--list".into(),
        path(&list),
        "-q".into(),
    ];
    audit.extend(site.args());
    let out = run(&audit);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let three = crate::util::audit_id(&out.stdout).0;
    let out = run(&[
        "migrate".into(),
        old.to_string(),
        three.to_string(),
        "--db".into(),
        db.clone(),
        "--json".into(),
    ]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let typed: view::migrate::MigrationReport = serde_json::from_str(&out.stdout).unwrap();
    let redirects = typed.migration.fix_files().redirects;
    assert!(!redirects.is_empty(), "{:#?}", typed.migration.rows);
    assert!(
        redirects
            .iter()
            .all(|r| r.target.starts_with("https://example.test/shoes")),
        "{redirects:#?}"
    );
    assert!(
        typed.simulation.clean(),
        "{:#?}\n{redirects:#?}",
        typed.simulation.problems
    );
    assert_eq!(typed.simulation.applied.redirects as usize, redirects.len());

    // A missing audit is an error (exit 2), not a panic.
    let mut missing = args(&[]);
    missing[2] = "999".to_owned();
    let out = run(&missing);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("999"), "{}", out.stderr);
}

/// The map `dustpan migrate --out` wrote, edited by hand and simulated on the new audit
/// with `dustpan simulate NEW --plan DIR --migration`: each bad row is reported as its
/// kind, a good row is not.
#[test]
fn a_migration_map_edited_by_hand_reports_each_bad_row() {
    let site = Site::quiet();
    let old = site.audit(START, &["-q", "--no-dust-learning"]);
    site.server.set_variant(SiteVariant::After);
    let new = site.audit(START, &["-q", "--no-dust-learning"]);
    let dir = tempfile::tempdir().unwrap();
    let (db, plan) = (path(&site.db), path(dir.path()));
    let out = run(&[
        "migrate".into(),
        old.to_string(),
        new.to_string(),
        "--db".into(),
        db.clone(),
        "--out".into(),
        plan.clone(),
    ]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let simulate = |json: bool| {
        let mut a = vec![
            "simulate".to_owned(),
            new.to_string(),
            "--db".into(),
            db.clone(),
            "--plan".into(),
            plan.clone(),
            "--migration".into(),
        ];
        if json {
            a.push("--json".into());
        }
        run(&a)
    };
    // As written: clean.
    let out = simulate(false);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("clean: the plan creates no problem"),
        "{}",
        out.stdout
    );

    // A duplicate the new site serves (200) that is not its cluster's preferred URL: a
    // source of the new audit's own redirect map that does not redirect today.
    let own = tempfile::tempdir().unwrap();
    let out = run(&[
        "export".into(),
        new.to_string(),
        "--db".into(),
        db.clone(),
        "--out".into(),
        path(own.path()),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let own_map = std::fs::read_to_string(own.path().join("redirect_map.csv")).unwrap();
    let duplicate = own_map
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|f| f.len() >= 5 && f[0].starts_with("https://example.test/") && f[4].is_empty())
        .map(|f| f[0].to_owned())
        .unwrap_or_else(|| panic!("no duplicate serving 200 in\n{own_map}"));

    let map = dir.path().join("redirect_map.csv");
    let mut text = std::fs::read_to_string(&map).unwrap();
    for (source, target) in [
        // Good: the home page answers 200 and is preferred.
        ("https://example.test/careers", "https://example.test/"),
        // A 404 on the new site.
        (
            "https://example.test/old-returns",
            "https://example.test/returns-policy",
        ),
        // A URL the new site redirects on.
        (
            "https://example.test/old-chain",
            "https://example.test/chain/start",
        ),
        // A duplicate on the new site.
        ("https://example.test/old-dup", duplicate.as_str()),
        // A page the new site serves.
        ("https://example.test/new-arrivals", "https://example.test/"),
    ] {
        text.push_str(&format!("{source},{target},301,new,,\n"));
    }
    std::fs::write(&map, text).unwrap();
    let out = simulate(true);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let sim: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let problems = sim["problems"].as_array().unwrap();
    let kinds_of = |url: &str| -> Vec<&str> {
        problems
            .iter()
            .filter(|p| p["url"] == url)
            .map(|p| p["kind"].as_str().unwrap())
            .collect()
    };
    for (url, kind) in [
        ("https://example.test/old-returns", "redirect_to_error"),
        ("https://example.test/old-chain", "redirect_chain"),
        ("https://example.test/old-dup", "redirect_to_non_preferred"),
        ("https://example.test/new-arrivals", "page_taken_out"),
    ] {
        assert!(kinds_of(url).contains(&kind), "{url} {kind}: {problems:#?}");
    }
    assert_eq!(
        kinds_of("https://example.test/careers"),
        Vec::<&str>::new(),
        "{problems:#?}"
    );
    let text = simulate(false);
    assert!(text.stdout.contains("not clean"), "{}", text.stdout);
    assert!(
        text.stdout.contains(
            "https://example.test/old-returns -> https://example.test/returns-policy, which answers 404"
        ),
        "{}",
        text.stdout
    );
}
