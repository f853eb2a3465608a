//! The fixture's faceted shop (`fixture::shop`): open filter links, a host alias and a
//! tracking parameter. The audit must report each cause once, fetch a bounded number
//! of filter combinations, and give as many findings for a catalogue four times larger:
//! findings follow the site's problems, not its URLs.

use crate::util::{Site, audit_id, run};
use audit::FindingId;
use fixture::shop;
use std::collections::{BTreeMap, BTreeSet};

/// The facet budget the audits run with.
const FACET_BUDGET: u64 = 40;

struct Audited {
    /// Findings per kind.
    kinds: BTreeMap<FindingId, Vec<audit::Finding>>,
    /// Distinct combinations of two or more filter values fetched, per listing URL
    /// (host and path).
    combinations: BTreeMap<String, BTreeSet<String>>,
    /// URLs fetched.
    fetched: usize,
    /// The audit's findings, one line each, for messages.
    listing: String,
}

fn audit_shop(products: usize) -> Audited {
    let site = Site::start(fixture::shop_site(products));
    let budget = FACET_BUDGET.to_string();
    let out = run(&site.audit_args(
        "https://example.test/",
        &["--quiet", "--facet-budget", &budget],
    ));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let id = audit_id(&out.stdout);
    let store = site.store();
    site.rt.block_on(async {
        let loaded = view::workflow::load(&store, id, canon::Policy::seo())
            .await
            .unwrap();
        let analysis = audit::analyse(&loaded.input, &loaded.config);
        let contradictions = audit::consistency::contradictions(&loaded.input, &analysis);
        assert!(contradictions.is_empty(), "{contradictions:?}");
        let mut kinds: BTreeMap<FindingId, Vec<audit::Finding>> = BTreeMap::new();
        let mut listing = String::new();
        for f in &analysis.findings {
            listing.push_str(&format!("{} {}\n", f.id.code(), f.summary));
            kinds.entry(f.id).or_default().push(f.clone());
        }
        let urls = store.urls(id).await.unwrap();
        let mut combinations = BTreeMap::new();
        let mut fetched = 0;
        for u in &urls {
            if u.state != store::UrlState::Done {
                continue;
            }
            fetched += 1;
            let Some((path, query)) = u.url.split_once('?') else {
                continue;
            };
            let mut filters: Vec<&str> = query
                .split('&')
                .filter(|p| p.starts_with("color=") || p.starts_with("size="))
                .collect();
            filters.sort_unstable();
            filters.dedup();
            if filters.len() >= 2 {
                combinations
                    .entry(path.to_owned())
                    .or_insert_with(BTreeSet::new)
                    .insert(filters.join("&"));
            }
        }
        store.close().await;
        Audited {
            kinds,
            combinations,
            fetched,
            listing,
        }
    })
}

#[test]
fn a_faceted_shop_gets_one_finding_per_cause_and_a_bounded_crawl() {
    let small = audit_shop(24);
    let count = |a: &Audited, id: FindingId| a.kinds.get(&id).map_or(0, Vec::len);

    // The host alias: one finding, whatever the number of pages it doubles.
    assert_eq!(count(&small, FindingId::DupHost), 1, "{}", small.listing);
    let host = &small.kinds[&FindingId::DupHost][0];
    assert!(
        host.summary.contains("www.example.test"),
        "{}",
        host.summary
    );

    // The tracking parameter: one finding naming it.
    let tracking: Vec<&audit::Finding> = small
        .kinds
        .values()
        .flatten()
        .filter(|f| f.summary.contains("utm_campaign"))
        .collect();
    assert_eq!(tracking.len(), 1, "{}", small.listing);

    // The facets: one crawler-trap finding for the host's listings, with robots.txt
    // fixes.
    assert_eq!(count(&small, FindingId::Trap), 1, "{}", small.listing);
    assert!(
        small.kinds[&FindingId::Trap]
            .iter()
            .all(|f| f.fixes.iter().any(|x| x.to_string().contains("Disallow"))),
        "{}",
        small.listing
    );

    // The bound: at most the facet budget of filter combinations per listing.
    for (path, combos) in &small.combinations {
        let n = combos.len();
        assert!(
            n as u64 <= FACET_BUDGET,
            "{n} combinations of {path} fetched, over the budget of {FACET_BUDGET}"
        );
    }
    // Every URL fetched is a page of the catalogue, a filter combination within the
    // budget (each in at most a few parameter orders), or the same on the www alias.
    let hosts = 2;
    let listings = shop::CATEGORIES.len();
    let bound = |products: usize| hosts * (listings * 4 * FACET_BUDGET as usize + products + 20);
    assert!(
        small.fetched <= bound(24),
        "{} URLs fetched, over {}: {:?}\n{}",
        small.fetched,
        bound(24),
        small.combinations,
        small.listing
    );

    // Four times the catalogue: more URLs, the same findings.
    let large = audit_shop(96);
    assert!(large.fetched > small.fetched);
    assert!(large.fetched <= bound(96), "{} URLs fetched", large.fetched);
    eprintln!(
        "shop of 24 products: {} URLs fetched; of 96: {}",
        small.fetched, large.fetched
    );
    // The large shop has every problem of the small one and no other: each cause is
    // still one finding, and the total stays that of the causes (three problems, the
    // facets' parameter orders, sort and filter coincidences, and near-identical
    // listings), whatever the number of URLs.
    // The URL-variant probes add at most one finding per variant rule the server
    // answers with a duplicate (a site-level table, whatever the catalogue's size).
    for a in [&small, &large] {
        assert_eq!(count(a, FindingId::DupHost), 1, "{}", a.listing);
        assert_eq!(count(a, FindingId::Trap), 1, "{}", a.listing);
        assert!(count(a, FindingId::DupNear) <= 1, "{}", a.listing);
        let variants =
            count(a, FindingId::VariantDuplicate) + count(a, FindingId::VariantTemporary);
        assert!(variants <= 11, "{}", a.listing);
        let total: usize = a.kinds.values().map(Vec::len).sum::<usize>() - variants;
        // A filter value that selects nothing on the small catalogue (no product comes
        // in size xl) may read as a neutral value when the crawl's order makes an empty
        // listing without that filter the preferred URL: one more finding at most.
        assert!(total <= 9, "{total} findings:\n{}", a.listing);
    }
    for (id, n) in &large.kinds {
        assert!(
            n.len() <= count(&small, *id),
            "{id}: {} findings in the large shop, {} in the small one",
            n.len(),
            count(&small, *id)
        );
    }
}
