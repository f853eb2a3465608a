//! Redirect chains: every hop is its own request and its own row, so chains are walked
//! after the crawl over the stored hops, where loops and over-long chains show.

use std::collections::{HashMap, HashSet};

use store::{ChainProblem, ChainRecord, RedirectEdge, UrlId};

/// The chains that loop or are longer than `max_hops`, one record per chain: walked from
/// its head (a redirecting URL nothing redirects to); a loop nothing enters from outside
/// is walked from its smallest id.
pub(crate) fn problem_chains(edges: &[RedirectEdge], max_hops: u32) -> Vec<ChainRecord> {
    let next: HashMap<UrlId, UrlId> = edges.iter().map(|e| (e.from, e.to)).collect();
    let targets: HashSet<UrlId> = edges.iter().map(|e| e.to).collect();
    let mut starts: Vec<UrlId> = next.keys().copied().collect();
    // Heads first, then the rest, each in id order.
    starts.sort_unstable_by_key(|id| (targets.contains(id), *id));
    let mut covered: HashSet<UrlId> = HashSet::new();
    let mut problems = Vec::new();
    for start in starts {
        if covered.contains(&start) {
            continue;
        }
        let mut path = vec![start];
        let mut seen = HashSet::from([start]);
        let mut current = start;
        while let Some(&to) = next.get(&current) {
            if !seen.insert(to) {
                problems.push(ChainRecord {
                    start,
                    last: None,
                    hops: u32::try_from(path.len()).unwrap_or(u32::MAX),
                    problem: ChainProblem::Loop,
                });
                break;
            }
            path.push(to);
            current = to;
            let hops = u32::try_from(path.len() - 1).unwrap_or(u32::MAX);
            if hops > max_hops {
                problems.push(ChainRecord {
                    start,
                    last: Some(to),
                    hops,
                    problem: ChainProblem::TooLong,
                });
                break;
            }
        }
        covered.extend(path);
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edges(pairs: &[(UrlId, UrlId)]) -> Vec<RedirectEdge> {
        pairs
            .iter()
            .map(|&(from, to)| RedirectEdge { from, to })
            .collect()
    }

    #[test]
    fn a_loop_entered_from_outside_is_reported_from_its_head() {
        let found = problem_chains(&edges(&[(1, 2), (2, 3), (3, 2)]), 10);
        assert_eq!(
            found,
            vec![ChainRecord {
                start: 1,
                last: None,
                hops: 3,
                problem: ChainProblem::Loop
            }]
        );
    }

    #[test]
    fn a_closed_loop_is_reported_once() {
        let found = problem_chains(&edges(&[(5, 6), (6, 5)]), 10);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].start, found[0].problem), (5, ChainProblem::Loop));
    }

    #[test]
    fn long_chains_and_fine_chains() {
        let chain: Vec<(UrlId, UrlId)> = (1..=4).map(|i| (i, i + 1)).collect();
        assert!(problem_chains(&edges(&chain), 4).is_empty());
        let found = problem_chains(&edges(&chain), 3);
        assert_eq!(
            found,
            vec![ChainRecord {
                start: 1,
                last: Some(5),
                hops: 4,
                problem: ChainProblem::TooLong
            }]
        );
    }
}
