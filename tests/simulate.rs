//! `dustpan simulate` on the fixture audits: the plan Dustpan proposes for the Before
//! and the After site simulates clean, and a plan edited by hand into a redirect chain
//! and a redirect to a 404 is reported, with exit code 1.

use crate::util::dustpan;

#[test]
fn the_fixture_plans_simulate_clean_and_a_broken_plan_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("simulate.sqlite");
    let db = db.to_str().unwrap();
    for variant in [&[][..], &["--after"][..]] {
        let mut args = vec!["demo", "--db", db, "-q", "--slow-ms", "100"];
        args.extend_from_slice(variant);
        let out = dustpan(&args, "");
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    for audit in ["1", "2"] {
        let sim = dustpan(&["simulate", audit, "--db", db], "");
        assert_eq!(sim.code, 0, "audit {audit}:\n{}{}", sim.stdout, sim.stderr);
        assert!(
            sim.stdout.contains("clean: the plan creates no problem"),
            "{}",
            sim.stdout
        );
        // Something was applied: the simulation is not of an empty plan.
        assert!(!sim.stdout.contains(" 0 redirects"), "{}", sim.stdout);
    }

    // Dustpan's own plan, read back from its export, is clean too.
    let plan = dir.path().join("plan");
    let plan_arg = plan.to_str().unwrap();
    let export = dustpan(&["export", "1", "--db", db, "--out", plan_arg], "");
    assert_eq!(export.code, 0, "{}", export.stderr);
    let sim = dustpan(&["simulate", "1", "--db", db, "--plan", plan_arg], "");
    assert_eq!(sim.code, 0, "{}{}", sim.stdout, sim.stderr);

    // Edited by hand: one planned target redirects on to the home page (a chain), and
    // an old URL is sent to a page that answers 404.
    let map_path = plan.join("redirect_map.csv");
    let mut map = std::fs::read_to_string(&map_path).unwrap();
    let target = map
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().to_owned())
        .find(|t| t.starts_with("https://example.test/") && t != "https://example.test/")
        .expect("a planned redirect on the main host");
    map.push_str(&format!("{target},https://example.test/,301,new,,\n"));
    map.push_str("https://example.test/old-shop,https://example.test/discontinued,301,new,,\n");
    std::fs::write(&map_path, map).unwrap();
    let sim = dustpan(&["simulate", "1", "--db", db, "--plan", plan_arg], "");
    assert_eq!(sim.code, 1, "{}{}", sim.stdout, sim.stderr);
    assert!(
        sim.stdout.contains("Redirect chains (redirect_chain):"),
        "{}",
        sim.stdout
    );
    assert!(
        sim.stdout
            .contains(&format!("-> {target} -> https://example.test/")),
        "{}",
        sim.stdout
    );
    assert!(
        sim.stdout
            .contains("Redirects to an error (redirect_to_error):"),
        "{}",
        sim.stdout
    );
    assert!(
        sim.stdout.contains(
            "https://example.test/old-shop -> https://example.test/discontinued, which answers 404"
        ),
        "{}",
        sim.stdout
    );
    assert!(sim.stdout.contains("not clean"), "{}", sim.stdout);

    // The same as JSON, for scripts.
    let json = dustpan(
        &["simulate", "1", "--db", db, "--plan", plan_arg, "--json"],
        "",
    );
    assert_eq!(json.code, 1, "{}", json.stderr);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    // The document is the type its schema is generated from (docs/json/v1/), whole.
    let typed: view::fixplan::Simulation = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), v);
    let kinds: Vec<&str> = v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"redirect_chain"), "{kinds:?}");
    assert!(kinds.contains(&"redirect_to_error"), "{kinds:?}");

    // A plan file that is not one is an error (exit 2), not a clean plan.
    std::fs::write(
        &map_path,
        "source,target,status\nhttps://example.test/a,https://example.test/b,200\n",
    )
    .unwrap();
    let bad = dustpan(
        &[
            "simulate",
            "1",
            "--db",
            db,
            "--plan",
            map_path.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(bad.code, 2, "{}{}", bad.stdout, bad.stderr);
    assert!(
        bad.stderr.contains("redirect_map.csv line 2"),
        "{}",
        bad.stderr
    );
}
