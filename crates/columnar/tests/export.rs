//! A synthetic audit written into a real store, exported as Parquet and read back with
//! the Parquet reader: every table holds the store's rows, with the documented schema,
//! and the files come in row groups of bounded size.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use arrow_array::cast::AsArray;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::path::Path;

fn read(path: &Path) -> (Vec<(String, String)>, usize, usize) {
    let file = std::fs::File::open(path).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let fields = builder
        .schema()
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().to_string()))
        .collect();
    let groups = builder.metadata().num_row_groups();
    let rows = builder
        .build()
        .unwrap()
        .map(|b| b.unwrap().num_rows())
        .sum();
    (fields, rows, groups)
}

#[tokio::test]
async fn every_table_holds_the_stored_rows_in_the_documented_schema() {
    let dir = tempfile::tempdir().unwrap();
    let store = store::Store::open(&dir.path().join("a.sqlite"))
        .await
        .unwrap();
    let mut rng = synthetic::Rng(11);
    // Large enough for several batches and two row groups of the links table.
    let nodes = synthetic::site(20_000, &mut rng);
    let ids = synthetic::ids(nodes.len(), None);
    let input = synthetic::input(&nodes, &ids);
    let audit = synthetic::write(&store, &input).await;
    let out = dir.path().join("parquet");
    let policy = canon::Preset::default().policy();
    let written = columnar::export_audit(&store, audit, &policy, &out)
        .await
        .unwrap();

    let rows = |t: &str| written.iter().find(|w| w.table == t).unwrap().rows as usize;
    assert_eq!(rows("urls"), input.urls.len());
    assert_eq!(rows("fetches"), input.fetches.len());
    assert_eq!(rows("redirects"), input.redirects.len());
    assert_eq!(rows("canonicals"), input.canonicals.len());
    assert_eq!(rows("links"), input.links.len());
    assert_eq!(rows("sitemap_entries"), input.sitemap_entries.len());
    assert!(input.links.len() > columnar::ROW_GROUP_ROWS);

    for w in &written {
        let (fields, n, groups) = read(&w.path);
        assert_eq!(n as u64, w.rows, "{}", w.table);
        assert!(groups as u64 <= w.rows.div_ceil(columnar::ROW_GROUP_ROWS as u64).max(1));
        let table = columnar::TABLES.iter().find(|t| t.name == w.table).unwrap();
        let documented: Vec<(String, String)> = table
            .columns
            .iter()
            .map(|c| (c.0.to_owned(), c.1.as_str().to_owned()))
            .collect();
        assert_eq!(fields, documented, "{}", w.table);
    }

    // Each URL's key is its equivalence key under the policy: a tracking variant
    // shares its page's key.
    let file = std::fs::File::open(out.join("urls.parquet")).unwrap();
    let mut tracked = 0;
    for batch in ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap()
    {
        let batch = batch.unwrap();
        let url = batch.column_by_name("url").unwrap().as_string::<i32>();
        let key = batch.column_by_name("key").unwrap().as_string::<i32>();
        for i in 0..batch.num_rows() {
            if let Some(page) = url.value(i).strip_suffix("?utm_source=x") {
                assert_eq!(key.value(i), page);
                tracked += 1;
            }
        }
    }
    assert!(tracked > 100, "{tracked}");
    store.close().await;
}

#[tokio::test]
async fn an_unwritable_folder_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = store::Store::open(&dir.path().join("a.sqlite"))
        .await
        .unwrap();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "x").unwrap();
    let policy = canon::Preset::default().policy();
    let err = columnar::export_audit(&store, store::AuditId(1), &policy, &blocker.join("out"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("out"), "{err}");
    store.close().await;
}
