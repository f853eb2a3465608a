// The contract types, generated from the Rust types into `src/bindings/`. Every module of the
// UI imports them from here, never from the bindings folder directly.
export type {
  AuditListItem,
  Cell,
  ClusterDetail,
  Column,
  ColumnFilter,
  ColumnKind,
  CountItem,
  DiffSection,
  DiffView,
  FindingPage,
  FindingQuery,
  FindingView,
  MemberView,
  Overview,
  PresetName,
  Progress,
  ProgressPhase,
  SeverityCounts,
  SignalView,
  SortSpec,
  StartAuditRequest,
  TableName,
  TablePage,
  TableQuery,
} from "../bindings";

import type { PresetName, ProgressPhase, TableName } from "../bindings";

/** Phases after which an audit's crawl no longer changes. */
export const FINAL_PHASES: readonly ProgressPhase[] = ["done", "cancelled", "failed"];

/** The report tables shown under "Tables", with their labels, in menu order. */
export const REPORT_TABLES: readonly { table: TableName; label: string }[] = [
  { table: "pages", label: "Pages" },
  { table: "redirects", label: "Redirects" },
  { table: "canonicals", label: "Canonicals" },
  { table: "sitemapEntries", label: "Sitemap entries" },
  { table: "linksToNonPreferred", label: "Links to non-preferred" },
  { table: "params", label: "Parameters" },
  { table: "dustRules", label: "DUST rules" },
  { table: "clusterMembers", label: "Cluster members" },
  { table: "findings", label: "Findings" },
];

/** Normalization presets a new audit can use. */
export const PRESETS: readonly PresetName[] = ["rfc3986", "seo", "aggressive"];

/** Finding severities, most severe first. */
export const SEVERITIES = ["error", "warning", "notice"] as const;
