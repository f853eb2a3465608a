//! The JSON Schemas of the command line's `--format json` documents, committed under
//! `docs/json/v1/`, are what the types generate: a change to a type that is not
//! reflected in the committed schema fails here. `DUSTPAN_BLESS=1 cargo test -p view
//! --test json_schema` writes them anew (review the diff; a removed or renamed field
//! needs a new `SCHEMA_VERSION`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use view::output::{schema_dir, schemas};

#[test]
fn committed_schemas_match_the_types() {
    let dir = schema_dir();
    let bless = std::env::var_os("DUSTPAN_BLESS").is_some();
    let mut stale = Vec::new();
    for (name, schema) in schemas() {
        let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        let path = dir.join(name);
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(committed) if committed == text => {}
            _ => stale.push(name),
        }
    }
    assert!(
        stale.is_empty(),
        "{stale:?} in {} differ from the types: run `DUSTPAN_BLESS=1 cargo test -p view --test json_schema` and review the diff",
        dir.display()
    );
    let committed: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for name in committed {
        assert!(
            schemas().iter().any(|(n, _)| *n == name),
            "{name} in {} is no document's schema",
            dir.display()
        );
    }
}

#[test]
fn a_document_validates_its_own_shape() {
    // The schema of the audits document names its fields as the JSON does.
    let (_, s) = schemas().into_iter().next().unwrap();
    let json = serde_json::to_value(&s).unwrap();
    assert!(json["properties"]["schemaVersion"].is_object(), "{json}");
    assert!(json["properties"]["audits"].is_object(), "{json}");
}
