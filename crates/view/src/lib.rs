//! An audit opened for reading: the report as pageable, sortable, filterable tables.
//!
//! The desktop app shows nothing that does not come from here, so every view of an
//! audit can be checked by a test without a window. No Tauri and no SQL: the rows come
//! from the store through `load::load`, the analysis from `audit::analyse`.
//!
//! - [`OpenAudit`]: one audit loaded and analysed: its [`Overview`], paged
//!   [`TableQuery`]s over every table, a cluster's detail, findings, CSV exports.
//! - [`workflow`]: the audit workflow both front ends call: an audit's analysis
//!   configuration, finishing a crawled audit, the full report export.
//! - [`learn`]: `dustpan learn`'s rule checking by fetched sample pairs.
//! - [`options`]: the crawl configuration from a user's options, for every front end.
//! - [`runs`]: starting, resuming and cancelling audits, with throttled [`Progress`].
//! - [`session`]: what the app keeps between commands: a few opened audits, shared
//!   opens, and the policy each audit is analysed under ([`Session`]).
//! - [`fixplan`]: the fix plan's files and its simulation, paged; [`verify`]: the plan
//!   checked on the live site; [`migrate`]: a site migration mapped; [`explain`]: Search
//!   Console's verdicts explained.
//! - [`list_audits`]: the history; [`compare`]: what changed between two audits.
//! - [`live_url_detail`]: one URL as the store holds it while its audit is crawled.
//! - [`chosen`]: the paths the user chose in the app's dialogs, the only ones its
//!   commands read or write.
//! - [`types`]: what the app exchanges with its web front end; their TypeScript
//!   declarations are generated from them ([`bindings`]).

pub mod bindings;
pub mod chosen;
mod compare;
pub mod deliver;
mod detail;
mod error;
pub mod explain;
pub mod external;
pub mod family;
mod findings;
pub mod fixplan;
pub mod issues;
pub mod learn;
pub mod links;
mod list;
pub mod lists;
mod live;
pub mod migrate;
mod normalize;
mod open;
pub mod options;
pub mod output;
mod overview;
pub mod rendered;
pub mod runs;
pub mod session;
pub mod table;
pub mod tables;
pub mod types;
mod url_detail;
pub mod verify;
pub mod workflow;

pub use chosen::{ChosenPaths, PathChoice, PathPurpose};
pub use compare::{compare, crawl_rules};
pub use error::ViewError;
pub use list::list_audits;
pub use live::{LIVE_LINKS, live_url_detail};
pub use normalize::{NormalizedUrl, RuleStep, normalize_url};
pub use open::{AnalysisPolicy, OpenAudit, analysis_summary, record_analysis};
pub use session::Session;
pub use types::*;
