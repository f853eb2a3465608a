//! The workspace's layering (ARCHITECTURE.md, "Layers"), checked on `cargo metadata`:
//! every crate depends only on crates of lower layers, and the analysis stays pure.

use std::collections::BTreeMap;

/// The layer of every workspace crate; a crate may depend (normal dependencies) only on
/// crates of a lower layer.
const LAYERS: &[(&str, u8)] = &[
    // The words the store, the crawl, the analysis and the app share.
    ("vocab", 0),
    // Leaves: one format or one store each.
    ("canon", 1),
    ("extract", 1),
    ("sitemap", 1),
    ("store", 1),
    ("fixture", 1),
    // Search-engine bots verified by reverse and forward DNS.
    ("botcheck", 1),
    // Pages rendered in headless Chromium, every request answered by the caller.
    ("render", 1),
    // Types the crawl and the analysis share (learned DUST rules, on canon's policies);
    // URL lists for list audits (on the sitemap parser).
    ("rules", 2),
    ("urllist", 2),
    // The crawl and the analysis, side by side.
    ("crawl", 3),
    ("audit", 3),
    // Stored audits as analysis input; two analyses compared; synthetic audits for the
    // benchmarks.
    ("load", 4),
    ("diff", 4),
    ("synthetic", 4),
    // An audit's tables as Parquet; the clustering as DataFusion plans over them.
    ("columnar", 4),
    ("dataflow", 4),
    // The service layer: the audit workflow both front ends call.
    ("view", 5),
    // The audits as a Model Context Protocol server, over the service layer.
    ("mcp", 6),
    // Front ends.
    ("dustpan", 7),
    ("dustpan-desktop", 7),
    ("desktop-e2e", 8),
];

/// External crates the pure analysis must not link: no I/O, no async runtime.
const NOT_IN_AUDIT: &[&str] = &["tokio", "sqlx", "reqwest", "store", "hyper"];

fn metadata() -> serde_json::Value {
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

#[test]
fn every_crate_depends_only_on_lower_layers() {
    let layers: BTreeMap<&str, u8> = LAYERS.iter().copied().collect();
    let meta = metadata();
    let packages = meta["packages"].as_array().unwrap();
    let mut problems = Vec::new();
    for p in packages {
        let name = p["name"].as_str().unwrap();
        let Some(&layer) = layers.get(name) else {
            problems.push(format!(
                "{name} has no layer: add it to LAYERS and ARCHITECTURE.md"
            ));
            continue;
        };
        for d in p["dependencies"].as_array().unwrap() {
            // Normal dependencies only: tests and benchmarks may use anything.
            if !d["kind"].is_null() {
                continue;
            }
            let dep = d["name"].as_str().unwrap();
            if let Some(&l) = layers.get(dep)
                && l >= layer
            {
                problems.push(format!(
                    "{name} (layer {layer}) depends on {dep} (layer {l})"
                ));
            }
            if name == "audit" && NOT_IN_AUDIT.contains(&dep) {
                problems.push(format!("audit, the pure analysis, depends on {dep}"));
            }
            // The demo site is linked only for `dustpan demo`, behind its feature, and
            // by the desktop app's end-to-end test.
            let allowed = (name == "dustpan" && d["optional"] == true) || name == "desktop-e2e";
            if dep == "fixture" && !allowed {
                problems.push(format!("{name} links the fixture site outside a test"));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
