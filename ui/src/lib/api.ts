// The contract, generated from the Rust types into `src/bindings/`: types (enums as string
// unions), the vocabulary (every enum's values, labels, which phases and statuses are final) and
// the command wrappers. Every module of the UI imports them from here, never from the bindings
// folder directly.
export type {
  AuditListItem,
  AuditStatus,
  Cause,
  Cell,
  ClusterDetail,
  Column,
  ColumnFilter,
  ColumnKind,
  CountItem,
  DiffSection,
  DiffView,
  ErrorCode,
  Family,
  FilterOp,
  FindingCode,
  FindingPage,
  FindingQuery,
  FindingView,
  IpcError,
  MemberView,
  Overview,
  PresetName,
  Progress,
  ProgressPhase,
  Role,
  Severity,
  SeverityCounts,
  SignalKind,
  SignalView,
  SortSpec,
  StartAuditRequest,
  TableName,
  TablePage,
  TableQuery,
  Tier,
  ViewQuery,
} from "../bindings";
export type { Commands, Events, Invoke } from "../bindings";
export {
  AUDIT_STATUSES,
  CAUSE_LABELS,
  ERROR_CODES,
  FAMILIES,
  FILTER_OP_LABELS,
  FINAL_PHASES,
  FINISHED_EVENT,
  MAX_PATTERN_LEN,
  NUMBER_FILTER_OPS,
  PHASES,
  PRESETS,
  PROGRESS_EVENT,
  RESUMABLE_STATUSES,
  ROLE_LABELS,
  SETTLED_STATUSES,
  SEVERITIES,
  SIGNAL_LABELS,
  TEXT_FILTER_OPS,
  commands,
} from "../bindings";

import type { TableName } from "../bindings";

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
