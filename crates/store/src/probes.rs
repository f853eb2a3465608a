//! URL-variant probes (table `probes`) and where an audit is with them
//! (`audits.probe_phase`). The crawler writes probe rows through the
//! [`Writer`](crate::Writer) ([`Writer::probes`](crate::Writer::probes)), in the same
//! transaction as the variant URLs they point at.

use serde::{Deserialize, Serialize};
use sqlx::Row;
use vocab::words;

use crate::error::SqlContext;
use crate::{AuditId, NewUrl, ProbeRule, Requeue, Store, StoreError, UrlId};

words! {
    /// Where an audit is with its probes (`audits.probe_phase`).
    pub enum ProbePhase {
        /// To do once a run has drained the frontier.
        Pending = "pending",
        /// Done (or found nothing to probe): a resumed run does not probe again.
        Done = "done",
        /// Created before probes existed: never probed.
        Never = "none",
    }
}

/// One probe: a variant URL requested (or already known) for a page under a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProbeRecord {
    /// The variant (`urls.id`).
    pub url_id: UrlId,
    /// The page it is a variant of (`urls.id`).
    pub base_url_id: UrlId,
    /// How the variant was made.
    pub rule: ProbeRule,
}

/// The variant URLs of a batch of probes and the probe rows, written in one transaction
/// ([`Writer::probes`](crate::Writer::probes)).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProbeBatch {
    /// Variants new to the audit.
    pub urls: Vec<NewUrl>,
    /// Variants known but skipped for a reason that no longer holds.
    pub requeue: Vec<Requeue>,
    /// The probes (ids as the crawler allocated them).
    pub probes: Vec<ProbeRecord>,
}

/// A page a probe may start from: fetched HTML that answered 200 (see
/// [`Store::probe_candidates`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeCandidate {
    /// The page.
    pub id: UrlId,
    /// Its URL.
    pub url: String,
    /// Its host.
    pub host: String,
    /// Its link depth.
    pub depth: u32,
    /// Its site section: the first segment of its path (`shoes` for `/shoes/red`, empty
    /// for `/`).
    pub section: String,
    /// How many candidate pages the section (on this host) has.
    pub section_pages: u64,
}

impl Store {
    /// Where `audit` is with its probes.
    pub async fn probe_phase(&self, audit: AuditId) -> Result<ProbePhase, StoreError> {
        let row: Option<String> = sqlx::query_scalar("SELECT probe_phase FROM audits WHERE id = ?")
            .bind(audit.0)
            .fetch_optional(self.pool())
            .await
            .ctx("reading an audit's probe phase")?;
        let text = row.ok_or(StoreError::AuditNotFound(audit))?;
        ProbePhase::parse(&text).ok_or_else(|| StoreError::Corrupt {
            audit,
            field: "audits.probe_phase",
            detail: text,
        })
    }

    /// Sets where `audit` is with its probes.
    pub async fn set_probe_phase(
        &self,
        audit: AuditId,
        phase: ProbePhase,
    ) -> Result<(), StoreError> {
        let done = sqlx::query("UPDATE audits SET probe_phase = ? WHERE id = ?")
            .bind(phase.as_str())
            .bind(audit.0)
            .execute(self.pool())
            .await
            .ctx("setting an audit's probe phase")?;
        if done.rows_affected() == 0 {
            return Err(StoreError::AuditNotFound(audit));
        }
        Ok(())
    }

    /// Pages of `audit` that look preferred, for probes to start from: fetched HTML
    /// (parsed, so it has a text fingerprint, and not cut at the size cap) that answered
    /// 200, without noindex, not found as a variant, declaring no canonical to another
    /// URL (but one of its own comment pages, `/post/comment-page-2/`, which a CMS that
    /// splits comments into pages names), in a site section where the crawl met no trap; of pages with the same text,
    /// the one with the shortest URL (without a query first). Per host and site
    /// section (the first path segment) the first `per_section` pages by URL (pages
    /// without a query first) and the first `directories` pages whose URL ends in `/`;
    /// hosts take turns (every host's largest section, then every host's next one), and
    /// within a turn the sections with the most pages without a query first (then the
    /// most pages) come first; at most `limit` rows.
    pub async fn probe_candidates(
        &self,
        audit: AuditId,
        per_section: u32,
        directories: u32,
        limit: u32,
    ) -> Result<Vec<ProbeCandidate>, StoreError> {
        let rows = sqlx::query(
            "WITH cand AS (
                 SELECT u.id, u.url, u.host, u.depth, 0 AS trap,
                        ROW_NUMBER() OVER (PARTITION BY f.text_hash
                                           ORDER BY instr(u.url, '?') > 0, length(u.url),
                                                    u.url) AS twin
                 FROM urls u
                 JOIN fetches f ON f.audit_id = u.audit_id AND f.url_id = u.id
                 WHERE u.audit_id = ?1 AND u.found_via <> 'variant' AND u.state = 'done'
                   AND f.status = 200 AND f.text_hash IS NOT NULL AND f.noindex = 0
                   AND f.truncated = 0
                   AND NOT EXISTS (
                       SELECT 1 FROM canonicals k
                       JOIN urls t ON t.audit_id = k.audit_id AND t.id = k.target_url_id
                       WHERE k.audit_id = u.audit_id AND k.page_url_id = u.id
                         AND +k.target_url_id IS NOT NULL AND +k.target_url_id <> u.id
                         -- a post naming its own comment page is still the page
                         -- (the analysis's `own_comment_page_canonical`)
                         AND t.url NOT GLOB rtrim(u.url, '/') || '/comment-page-[0-9]*')
                 UNION ALL
                 SELECT id, url, host, depth, 1, 1 FROM urls
                 WHERE audit_id = ?1 AND reason_kind LIKE 'trap%'
             ), paths AS (
                 SELECT id, url, host, depth, trap,
                        substr(substr(url, instr(url, '://') + 3),
                               instr(substr(url, instr(url, '://') + 3), '/') + 1) || '/'
                            AS tail
                 FROM cand
                 WHERE twin = 1
             ), first AS (
                 SELECT id, url, host, depth, trap,
                        substr(tail, 1, instr(tail, '/') - 1) || '?' AS head
                 FROM paths
             ), sections AS (
                 SELECT id, url, host, depth, trap,
                        substr(head, 1, instr(head, '?') - 1) AS section,
                        instr(url, '?') > 0 AS has_query,
                        substr(url, -1) = '/' AS is_dir,
                        MAX(trap) OVER (PARTITION BY host,
                                        substr(head, 1, instr(head, '?') - 1)) AS trapped
                 FROM first
             ), ranked AS (
                 SELECT id, url, host, depth, section, is_dir,
                        ROW_NUMBER() OVER (PARTITION BY host, section
                                           ORDER BY has_query, url) AS n,
                        ROW_NUMBER() OVER (PARTITION BY host, section, is_dir
                                           ORDER BY has_query, url) AS n_dir,
                        COUNT(*) OVER (PARTITION BY host, section) AS pages,
                        SUM(NOT has_query) OVER (PARTITION BY host, section) AS clean
                 FROM sections
                 WHERE trapped = 0
             ), turns AS (
                 SELECT id, url, host, depth, section, pages, clean,
                        DENSE_RANK() OVER (PARTITION BY host
                                           ORDER BY clean DESC, pages DESC, section) AS turn
                 FROM ranked
                 WHERE n <= ?2 OR (is_dir AND n_dir <= ?3)
             )
             SELECT id, url, host, depth, section, pages FROM turns
             ORDER BY turn, clean DESC, pages DESC, host, section, url
             LIMIT ?4",
        )
        .bind(audit.0)
        .bind(i64::from(per_section))
        .bind(i64::from(directories))
        .bind(i64::from(limit))
        .fetch_all(self.pool())
        .await
        .ctx("reading pages to probe")?;
        Ok(rows
            .iter()
            .map(|r| ProbeCandidate {
                id: r.get(0),
                url: r.get(1),
                host: r.get(2),
                depth: u32::try_from(r.get::<i64, _>(3)).unwrap_or(0),
                section: r.get(4),
                section_pages: u64::try_from(r.get::<i64, _>(5)).unwrap_or(0),
            })
            .collect())
    }

    /// The probes of `audit`, by variant then rule.
    pub async fn probes(&self, audit: AuditId) -> Result<Vec<ProbeRecord>, StoreError> {
        let rows = sqlx::query(
            "SELECT url_id, base_url_id, rule FROM probes WHERE audit_id = ?
             ORDER BY url_id, rule",
        )
        .bind(audit.0)
        .fetch_all(self.pool())
        .await
        .ctx("reading probes")?;
        rows.iter()
            .map(|r| {
                let rule: String = r.get(2);
                Ok(ProbeRecord {
                    url_id: r.get(0),
                    base_url_id: r.get(1),
                    rule: ProbeRule::parse(&rule).ok_or_else(|| StoreError::Corrupt {
                        audit,
                        field: "probes.rule",
                        detail: rule.clone(),
                    })?,
                })
            })
            .collect()
    }

    /// The variant URLs of `audit`'s probes and every URL their redirects led to: the
    /// pages whose links a crawl records without following.
    pub async fn probe_pages(&self, audit: AuditId) -> Result<Vec<UrlId>, StoreError> {
        sqlx::query_scalar(
            "WITH RECURSIVE reached (id, hops) AS (
                 SELECT url_id, 0 FROM probes WHERE audit_id = ?1
                 UNION
                 SELECT r.to_url_id, reached.hops + 1 FROM redirects r
                 JOIN reached ON r.audit_id = ?1 AND r.from_url_id = reached.id
                 JOIN urls u ON u.audit_id = ?1 AND u.id = r.to_url_id
                 WHERE r.to_url_id IS NOT NULL AND reached.hops < 20
                   AND u.found_via IN ('redirect', 'meta_refresh')
                   AND u.found_from = reached.id)
             SELECT DISTINCT id FROM reached ORDER BY id",
        )
        .bind(audit.0)
        .fetch_all(self.pool())
        .await
        .ctx("reading the pages of probes")
    }
}
