// An in-memory backend with the same interface as the Tauri one: real paging, sorting, search
// and filters over rows held in memory, events emitted by the test, and a log of every call.
// Its tables answer as the Rust view layer does: `tableContract.test.ts` runs the queries of
// `contract/tables.json` (answered by `view::table`) against it.
import type {
  AuditListItem,
  Cell,
  ClusterDetail,
  Column,
  ColumnFilter,
  DiffView,
  FindingPage,
  FindingQuery,
  FindingView,
  IpcError,
  IssueView,
  ListAuditRequest,
  Overview,
  Progress,
  StartAuditRequest,
  StatusCounts,
  TableName,
  TablePage,
  TableQuery,
  LinkDirection,
  LinkPage,
  UrlDetail,
  ViewQuery,
  FixPlanFile,
  FixPlanPage,
  SimulationPage,
  VerificationView,
  MigrationView,
  SearchConsoleView,
} from "../src/lib/api";
import { MAX_PATTERN_LEN } from "../src/lib/api";
import type { Backend, SavePurpose, Unsubscribe } from "../src/lib/backend";

/** The rows of one table. */
export interface FakeTable {
  columns: Column[];
  rows: Cell[][];
  keys: string[];
}

/** One recorded call. */
export interface Call {
  method: string;
  args: unknown[];
}

function text(cell: Cell): string {
  return cell === null ? "" : String(cell);
}

/** The error a command of the shell rejects with. */
function ipcError(code: IpcError["code"], message: string): IpcError {
  return { code, message };
}

/** The most rows one query returns (`MAX_LIMIT` in Rust). */
const MAX_LIMIT = 1000;

/** Unicode White_Space, which Rust's `str::trim` removes (JS `trim` differs on U+0085, U+FEFF). */
const SPACE = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const TRIM = new RegExp(`^${SPACE}+|${SPACE}+$`, "g");

/** Separates cells in a row's search text, as in Rust. */
const CELL_SEPARATOR = "\u001f";

/** A code unit moved so that UTF-16 strings compare in code point (UTF-8 byte) order. */
function codePointOrder(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/** Text by code points, as Rust compares strings. */
function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointOrder(x) - codePointOrder(y);
  }
  return a.length - b.length;
}

function isBlank(cell: Cell): boolean {
  return cell === null || cell === "";
}

/** Numbers before text, numbers by value, text by code points (cells not blank). */
function compareCells(a: Cell, b: Cell): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "string" && typeof b === "string") return compareText(a, b);
  return typeof a === "number" ? -1 : 1;
}

export class FakeBackend implements Backend {
  calls: Call[] = [];
  audits: AuditListItem[] = [];
  tables = new Map<TableName, FakeTable>();
  clusters = new Map<number, ClusterDetail>();
  findings: FindingView[] = [];
  issues: IssueView[] = [];
  /** URL → its detail; a URL not here answers `not_found`. */
  details = new Map<string, UrlDetail>();
  overview: Overview | null = null;
  diff: DiffView | null = null;
  progress = new Map<number, Progress>();
  nextAuditId = 100;
  /** Why Chromium cannot render here (`renderUnavailable`); `null`: it can. */
  noChromium: string | null = null;
  savePath: string | null = "/tmp/out.csv";
  directory: string | null = "/tmp/report";
  listFile: string | null = "/home/me/Documents/urls.txt";
  planFolder: string | null = "/home/me/plan";
  migrationFolder: string | null = "/home/me/migration";
  /** The fix plan's files: header and rows, paged as `view::fixplan::fix_plan_page` pages them. */
  planFiles = new Map<FixPlanFile, { columns: string[]; rows: string[][] }>();
  /** The simulation, every problem in `problems` (paged by `simulateFixPlan`). */
  simulation: SimulationPage | null = null;
  /** Verification audit id → its judged view. */
  verifications = new Map<number, VerificationView>();
  migration: MigrationView | null = null;
  /** URL → its Search Console explanation. */
  explanations = new Map<string, SearchConsoleView>();
  /** Texts put on the clipboard, in order. */
  clipboard: string[] = [];
  /** URLs opened in the browser, in order. */
  opened: string[] = [];
  /** CSV files written by `exportView`: path → header and rows as the shell writes them. */
  written = new Map<string, string[][]>();
  /** When set, `queryTable` waits for the test to call `release()`. */
  holdQueries = false;
  private held: (() => void)[] = [];
  private progressHandlers = new Set<(progress: Progress) => void>();
  private finishedHandlers = new Set<(progress: Progress) => void>();

  private log(method: string, ...args: unknown[]): void {
    this.calls.push({ method, args: structuredClone(args) });
  }

  /** The recorded calls of `method`. */
  callsOf(method: string): unknown[][] {
    return this.calls.filter((call) => call.method === method).map((call) => call.args);
  }

  release(): void {
    for (const resume of this.held.splice(0)) resume();
  }

  emitProgress(progress: Progress): void {
    for (const handler of this.progressHandlers) handler(progress);
  }

  emitFinished(progress: Progress): void {
    for (const handler of this.finishedHandlers) handler(progress);
  }

  async listAudits(): Promise<AuditListItem[]> {
    this.log("listAudits");
    return structuredClone(this.audits);
  }

  async startAudit(request: StartAuditRequest): Promise<number> {
    this.log("startAudit", request);
    return this.nextAuditId++;
  }

  async auditProgress(auditId: number): Promise<Progress | null> {
    this.log("auditProgress", auditId);
    return this.progress.get(auditId) ?? null;
  }

  async cancelAudit(auditId: number): Promise<void> {
    this.log("cancelAudit", auditId);
  }

  async resumeAudit(auditId: number): Promise<number> {
    this.log("resumeAudit", auditId);
    return auditId;
  }

  async rerunAudit(auditId: number): Promise<number> {
    this.log("rerunAudit", auditId);
    return this.nextAuditId++;
  }

  async deleteAudit(auditId: number): Promise<void> {
    this.log("deleteAudit", auditId);
    this.audits = this.audits.filter((audit) => audit.id !== auditId);
  }

  async openAudit(auditId: number): Promise<Overview> {
    this.log("openAudit", auditId);
    if (!this.overview) throw ipcError("not_found", `audit ${auditId} not found`);
    return { ...structuredClone(this.overview), auditId };
  }

  async queryTable(auditId: number, query: TableQuery): Promise<TablePage> {
    this.log("queryTable", auditId, query);
    if (this.holdQueries) await new Promise<void>((resume) => this.held.push(resume));
    const table = this.tables.get(query.table);
    if (!table) throw ipcError("invalid_input", `unknown table ${query.table}`);
    return answerTableQuery(table, query);
  }

  async clusterDetail(auditId: number, clusterId: number): Promise<ClusterDetail> {
    this.log("clusterDetail", auditId, clusterId);
    const detail = this.clusters.get(clusterId);
    if (!detail) throw ipcError("not_found", `the audit has no cluster ${clusterId}`);
    return structuredClone(detail);
  }

  async queryFindings(auditId: number, query: FindingQuery): Promise<FindingPage> {
    this.log("queryFindings", auditId, query);
    const needle = query.search?.replace(TRIM, "").toLowerCase() ?? "";
    const matched = this.findings.filter(
      (finding) =>
        (query.severity === null || finding.severity === query.severity) &&
        (query.family === null || finding.family === query.family) &&
        (needle === "" ||
          [finding.id, finding.title, finding.summary, ...finding.urls, ...finding.evidence, ...finding.fixes, finding.key]
            .join("\n")
            .toLowerCase()
            .includes(needle)),
    );
    const limit = Math.min(query.limit, MAX_LIMIT);
    return {
      total: this.findings.length,
      matched: matched.length,
      offset: query.offset,
      items: structuredClone(matched.slice(query.offset, query.offset + limit)),
    };
  }

  async listIssues(auditId: number): Promise<IssueView[]> {
    this.log("listIssues", auditId);
    if (!this.overview) throw ipcError("not_found", `audit ${auditId} not found`);
    return structuredClone(this.issues);
  }

  async urlDetail(auditId: number, url: string): Promise<UrlDetail> {
    this.log("urlDetail", auditId, url);
    const detail = this.details.get(url);
    if (!detail) throw ipcError("not_found", `the audit has no URL ${url}`);
    return structuredClone(detail);
  }

  async urlLinks(
    auditId: number,
    url: string,
    direction: LinkDirection,
    offset: number,
    limit: number,
  ): Promise<LinkPage> {
    this.log("urlLinks", auditId, url, direction, offset, limit);
    const detail = this.details.get(url);
    if (!detail) throw ipcError("not_found", `the audit has no URL ${url}`);
    const all = direction === "inlinks" ? detail.inlinks : detail.outlinks;
    const total = direction === "inlinks" ? detail.inlinksTotal : detail.outlinksTotal;
    return structuredClone({ url, direction, offset, total, links: all.slice(offset, offset + limit) });
  }

  async exportUrlLinks(auditId: number, url: string, direction: LinkDirection, path: string): Promise<number> {
    this.log("exportUrlLinks", auditId, url, direction, path);
    const detail = this.details.get(url);
    if (!detail) throw ipcError("not_found", `the audit has no URL ${url}`);
    return direction === "inlinks" ? detail.inlinksTotal : detail.outlinksTotal;
  }

  async exportAllLinks(auditId: number, direction: LinkDirection, path: string): Promise<number> {
    this.log("exportAllLinks", auditId, direction, path);
    return 0;
  }

  async exportWorkbook(auditId: number, path: string): Promise<number> {
    this.log("exportWorkbook", auditId, path);
    return this.tables.size;
  }

  async exportHtml(auditId: number, path: string): Promise<void> {
    this.log("exportHtml", auditId, path);
  }

  async renderUnavailable(): Promise<string | null> {
    this.log("renderUnavailable");
    return this.noChromium;
  }

  async compareAudits(oldAudit: number, newAudit: number): Promise<DiffView> {
    this.log("compareAudits", oldAudit, newAudit);
    if (!this.diff) throw ipcError("not_found", "nothing to compare");
    return structuredClone(this.diff);
  }

  async exportTable(auditId: number, table: TableName, path: string): Promise<number> {
    this.log("exportTable", auditId, table, path);
    return this.tables.get(table)?.rows.length ?? 0;
  }

  async exportView(auditId: number, query: ViewQuery, path: string): Promise<number> {
    this.log("exportView", auditId, query, path);
    const table = this.tables.get(query.table);
    if (!table) throw ipcError("invalid_input", `unknown table ${query.table}`);
    const order = matchingRows(table, query);
    this.written.set(path, [table.columns.map((c) => c.title), ...order.map((i) => table.rows[i].map(text))]);
    return order.length;
  }

  async exportReport(auditId: number, dir: string): Promise<string[]> {
    this.log("exportReport", auditId, dir);
    return [`${dir}/pages.csv`, `${dir}/clusters.csv`];
  }

  async onProgress(handler: (progress: Progress) => void): Promise<Unsubscribe> {
    this.progressHandlers.add(handler);
    return () => this.progressHandlers.delete(handler);
  }

  async onFinished(handler: (progress: Progress) => void): Promise<Unsubscribe> {
    this.finishedHandlers.add(handler);
    return () => this.finishedHandlers.delete(handler);
  }

  async pickSavePath(defaultName: string, purpose: SavePurpose = "saveCsv"): Promise<string | null> {
    this.log("pickSavePath", defaultName, purpose);
    return this.savePath;
  }

  async pickDirectory(): Promise<string | null> {
    this.log("pickDirectory");
    return this.directory;
  }

  async pickListFile(): Promise<string | null> {
    this.log("pickListFile");
    return this.listFile;
  }

  async pickPlanFolder(): Promise<string | null> {
    this.log("pickPlanFolder");
    return this.planFolder;
  }

  async pickMigrationFolder(): Promise<string | null> {
    this.log("pickMigrationFolder");
    return this.migrationFolder;
  }

  async fixPlanPage(auditId: number, file: FixPlanFile, offset: number, limit: number): Promise<FixPlanPage> {
    this.log("fixPlanPage", auditId, file, offset, limit);
    const table = this.planFiles.get(file) ?? { columns: [], rows: [] };
    return {
      file: { redirect_map: "redirect_map.csv", canonicals_to_set: "canonicals_to_set.csv", sitemap_changes: "sitemap_changes.csv" }[file],
      columns: table.columns,
      total: table.rows.length,
      offset,
      rows: table.rows.slice(offset, offset + Math.min(limit, MAX_LIMIT)),
      redirectsToWrite: this.planFiles.get("redirect_map")?.rows.length ?? 0,
      canonicals: this.planFiles.get("canonicals_to_set")?.rows.length ?? 0,
      sitemapLines: this.planFiles.get("sitemap_changes")?.rows.length ?? 0,
      links: 0,
    };
  }

  async simulateFixPlan(auditId: number, kind: string | null, offset: number, limit: number): Promise<SimulationPage> {
    this.log("simulateFixPlan", auditId, kind, offset, limit);
    if (!this.simulation) throw ipcError("not_found", `no audit ${auditId}`);
    const matched = this.simulation.problems.filter((p) => kind === null || p.kind === kind);
    return {
      ...this.simulation,
      matched: matched.length,
      offset,
      problems: matched.slice(offset, offset + Math.min(limit, MAX_LIMIT)),
    };
  }

  async startVerification(auditId: number, planDir: string | null, resolve: string[]): Promise<number> {
    this.log("startVerification", auditId, planDir, resolve);
    return this.nextAuditId++;
  }

  async verificationResult(auditId: number, verificationId: number, planDir: string | null): Promise<VerificationView> {
    this.log("verificationResult", auditId, verificationId, planDir);
    const found = this.verifications.get(verificationId);
    if (!found) throw ipcError("not_found", `no audit ${verificationId}`);
    return found;
  }

  async migrateAudits(oldAudit: number, newAudit: number): Promise<MigrationView> {
    this.log("migrateAudits", oldAudit, newAudit);
    if (!this.migration) throw ipcError("not_found", `no audit ${oldAudit}`);
    return { ...this.migration, oldAudit, newAudit };
  }

  async exportMigration(oldAudit: number, newAudit: number, dir: string): Promise<string[]> {
    this.log("exportMigration", oldAudit, newAudit, dir);
    return ["migration.csv", "redirect_map.csv", "nginx_redirects.conf"];
  }

  async explainUrl(auditId: number, url: string): Promise<SearchConsoleView | null> {
    this.log("explainUrl", auditId, url);
    return this.explanations.get(url) ?? null;
  }

  async startListAudit(request: StartAuditRequest, list: ListAuditRequest): Promise<number> {
    this.log("startListAudit", request, list);
    return this.nextAuditId++;
  }

  async openUrl(url: string): Promise<void> {
    this.log("openUrl", url);
    this.opened.push(url);
  }

  async copyText(text: string): Promise<void> {
    this.log("copyText", text);
    this.clipboard.push(text);
  }
}

/** A number in a filter value or a text cell, as `view::table::parse_number` reads it. */
function parseNumber(text: string): number | null {
  const t = text.replace(TRIM, "");
  return /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(t) ? Number(t) : null;
}

/** The number a number operator compares in a cell. */
function cellNumber(cell: Cell): number | null {
  if (typeof cell === "number") return cell;
  return cell === null ? null : parseNumber(cell);
}

/** A column filter compiled as the shell compiles it: a test of one cell. */
function compileFilter(filter: ColumnFilter, column: (key: string) => number) {
  const c = column(filter.column);
  const notANumber = (value: string) =>
    ipcError("invalid_input", `the filter on ${filter.column} needs a number, not ${JSON.stringify(value)}`);
  const number = (value: string): number => {
    const n = parseNumber(value);
    if (n === null) throw notANumber(value);
    return n;
  };
  let test: (cell: Cell) => boolean;
  switch (filter.op) {
    case "regex": {
      if (new TextEncoder().encode(filter.value).length > MAX_PATTERN_LEN) {
        throw ipcError("invalid_input", `the pattern of the filter on ${filter.column} is too long`);
      }
      let re: RegExp;
      try {
        re = new RegExp(filter.value, "iu");
      } catch (error) {
        throw ipcError("invalid_input", `the pattern of the filter on ${filter.column} is not valid: ${error}`);
      }
      test = (cell) => re.test(text(cell));
      break;
    }
    case "eq":
    case "ne":
    case "lt":
    case "le":
    case "gt":
    case "ge":
    case "between": {
      let low = number(filter.value);
      let high = low;
      if (filter.op === "between") {
        if (filter.upper === null) {
          throw ipcError("invalid_input", `the filter on ${filter.column} needs two numbers (between)`);
        }
        high = number(filter.upper);
        [low, high] = [Math.min(low, high), Math.max(low, high)];
      }
      const op = filter.op;
      test = (cell) => {
        const x = cellNumber(cell);
        if (x === null) return false;
        switch (op) {
          case "ne":
            return x !== low;
          case "lt":
            return x < low;
          case "le":
            return x <= low;
          case "gt":
            return x > low;
          case "ge":
            return x >= low;
          case "between":
            return low <= x && x <= high;
          default:
            return x === low;
        }
      };
      break;
    }
    default: {
      const needle = filter.value.toLowerCase();
      const op = filter.op;
      test = (cell) => {
        const t = text(cell).toLowerCase();
        switch (op) {
          case "contains":
            return t.includes(needle);
          case "not_contains":
            return !t.includes(needle);
          case "not_equals":
            return t !== needle;
          case "starts_with":
            return t.startsWith(needle);
          case "ends_with":
            return t.endsWith(needle);
          default:
            return t === needle;
        }
      };
    }
  }
  return (row: Cell[]) => test(row[c]);
}

/** The rows a view shows, in its order, as `view::table::PagedTable::matching` lists them. */
export function matchingRows(table: FakeTable, query: ViewQuery): number[] {
  const column = (key: string): number => {
    const c = table.columns.findIndex((col) => col.key === key);
    if (c < 0) throw ipcError("invalid_input", `table ${query.table} has no column ${JSON.stringify(key)}`);
    return c;
  };
  const filters = query.filters.map((filter) => compileFilter(filter, column));
  let order = table.rows.map((_, index) => index);
  if (query.sort) {
    const c = column(query.sort.column);
    const descending = query.sort.descending;
    // Stable: ties keep the table's order; blank cells last in both directions.
    order.sort((a, b) => {
      const x = table.rows[a][c];
      const y = table.rows[b][c];
      const blankX = isBlank(x);
      const blankY = isBlank(y);
      if (blankX || blankY) return blankX === blankY ? 0 : blankX ? 1 : -1;
      return descending ? compareCells(y, x) : compareCells(x, y);
    });
  }
  const needle = (query.search ?? "").replace(TRIM, "").toLowerCase();
  if (needle !== "" || filters.length > 0) {
    order = order.filter((i) => {
      const row = table.rows[i];
      if (!filters.every((keep) => keep(row))) return false;
      return needle === "" || row.map((cell) => text(cell).toLowerCase()).join(CELL_SEPARATOR).includes(needle);
    });
  }
  return order;
}

/** Answers a table query as `view::table::PagedTable::query` does. */
export function answerTableQuery(table: FakeTable, query: TableQuery): TablePage {
  const order = matchingRows(table, query);
  const limit = Math.min(query.limit, MAX_LIMIT);
  const slice = order.slice(query.offset, query.offset + limit);
  return {
    table: query.table,
    columns: table.columns,
    total: table.rows.length,
    matched: order.length,
    offset: query.offset,
    rows: slice.map((i) => table.rows[i]),
    rowKeys: slice.map((i) => table.keys[i]),
  };
}

/** A table of `count` generated pages: url, status, title, depth. */
export function pagesTable(count: number): FakeTable {
  const columns: Column[] = [
    { key: "url", title: "URL", kind: "url" },
    { key: "status", title: "Status", kind: "number" },
    { key: "title", title: "Title", kind: "text" },
    { key: "depth", title: "Depth", kind: "number" },
  ];
  const rows: Cell[][] = [];
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    rows.push([`https://site.test/p/${i}`, i % 10 === 0 ? 404 : 200, `Page ${i}`, i % 7]);
    keys.push(String(i));
  }
  return { columns, rows, keys };
}

/** An overview with a little of everything. */
export function sampleOverview(auditId = 1): Overview {
  return {
    auditId,
    startUrl: "https://site.test/",
    status: "done",
    startedAt: Date.UTC(2024, 4, 1, 12, 0),
    finishedAt: Date.UTC(2024, 4, 1, 12, 5),
    pages: 120,
    urls: 150,
    clusters: 3,
    clusteredUrls: 9,
    findingsBySeverity: [
      { label: "error", count: 2 },
      { label: "warning", count: 3 },
      { label: "notice", count: 1 },
    ],
    findingsByFamily: [
      { label: "duplicates", count: 4 },
      { label: "redirects", count: 2 },
    ],
    clustersByCause: [
      { label: "redirect", count: 2 },
      { label: "URL normalization", count: 1 },
    ],
    statusCodes: [
      { label: "200", count: 100 },
      { label: "301", count: 15 },
      { label: "404", count: 5 },
    ],
    redirectChainLengths: [
      { label: "1", count: 10 },
      { label: "2", count: 3 },
    ],
    preferredScheme: "https",
    policy: "seo",
    stop: null,
    failure: null,
  };
}

/** Three issues, highest priority first, and their URLs as the `issueUrls` table. */
export function sampleIssues(): { issues: IssueView[]; table: FakeTable } {
  const issue = (code: IssueView["code"], severity: IssueView["severity"], urls: number, priority: number): IssueView => ({
    code,
    title: `Title of ${code}`,
    severity,
    family: "canonicals",
    tier: "strong",
    findings: urls,
    urls,
    priority,
    why: `Why ${code} matters.`,
    howToFix: "301 redirects: 2.",
    exampleFix: `Fix one ${code}.`,
  });
  const issues = [
    issue("CANON-TO-ERROR", "error", 3, 6),
    issue("DUP-SLASH", "warning", 2, 3.17),
    issue("DUP-PARAM", "notice", 1, 1),
  ];
  const columns: Column[] = [
    { key: "issue", title: "Issue", kind: "text" },
    { key: "severity", title: "Severity", kind: "text" },
    { key: "address", title: "Address", kind: "url" },
    { key: "summary", title: "Summary", kind: "text" },
    { key: "fix", title: "Fix", kind: "text" },
    { key: "evidence", title: "Evidence", kind: "text" },
    { key: "title", title: "Title", kind: "text" },
  ];
  const rows: Cell[][] = [];
  const keys: string[] = [];
  for (const i of issues) {
    for (let n = 0; n < i.urls; n++) {
      const url = `https://site.test/${i.code.toLowerCase()}/${n}`;
      rows.push([i.code, i.severity, url, `Summary of ${url}`, `Fix ${url}`, "seen", i.title]);
      keys.push(`${i.code} ${url}\n${url}`);
    }
  }
  return { issues, table: { columns, rows, keys } };
}

/** The detail of `url`: a 404 with two inlinks, or (`redirect`) a URL with two hops. */
/** No answers counted yet. */
export const NO_STATUSES: StatusCounts = {
  success: 0,
  redirect: 0,
  clientError: 0,
  serverError: 0,
  other: 0,
  noResponse: 0,
  blocked: 0,
};

/** An audit's progress: nothing counted, then `change`. */
/** An audit of the list, settled as `status` says (resumable when it stopped before the end). */
export function sampleAudit(id: number, status: AuditListItem["status"] = "done"): AuditListItem {
  return {
    id,
    startUrl: `https://site${id}.test/`,
    startUrls: [`https://site${id}.test/`],
    resolve: [],
    extraCaCerts: 0,
    includes: [],
    excludes: [],
    followNofollow: true,
    configProblem: null,
    status,
    startedAt: Date.UTC(2024, 4, id, 10, 0),
    finishedAt: null,
    pages: id * 10,
    urls: id * 12,
    findings: null,
    clusters: null,
    stop: null,
    failure: null,
    resumable: ["cancelled", "failed", "interrupted"].includes(status),
    list: null,
  };
}

export function sampleProgress(auditId: number, change: Partial<Progress> = {}): Progress {
  return {
    auditId,
    phase: "crawling",
    fetched: 0,
    queued: 0,
    errors: 0,
    pagesPerSecond: 0,
    elapsedMs: 0,
    message: null,
    statuses: NO_STATUSES,
    latestErrors: [],
    ...change,
  };
}

export function sampleDetail(url: string, kind: "404" | "redirect" | "duplicate" = "404"): UrlDetail {
  const status = kind === "404" ? "404" : kind === "redirect" ? "301" : "200";
  return {
    url,
    fields: [
      { key: "address", label: "Address", value: url },
      { key: "title_1", label: "Title 1", value: "A title" },
      { key: "status_code", label: "Status Code", value: status },
      { key: "indexability", label: "Indexability", value: kind === "duplicate" ? "Indexable" : "Non-Indexable" },
      { key: "main_content_word_count", label: "Main Content Word Count", value: "120" },
    ],
    canonicals:
      kind === "duplicate"
        ? [{ source: "link element", href: "/shoes", target: "https://site.test/shoes", inHead: true }]
        : [],
    robots: kind === "404" ? ["meta robots: noindex"] : [],
    inlinks:
      kind === "404"
        ? [
            { url: "https://site.test/a", anchor: "Broken <b>link</b>", region: "main", kind: "link", nofollow: false, status: 404, external: false },
            { url: "https://site.test/b", anchor: null, region: "footer", kind: "nofollow link", nofollow: true, status: 404, external: false },
          ]
        : [],
    inlinksTotal: kind === "404" ? 3 : 0,
    outlinks: [],
    outlinksTotal: 0,
    hops:
      kind === "redirect"
        ? [
            { from: url, to: "https://site.test/b", status: 301, kind: "HTTP" },
            { from: "https://site.test/b", to: "https://site.test/c", status: 302, kind: "HTTP" },
          ]
        : [],
    cluster:
      kind === "duplicate"
        ? {
            clusterId: 4,
            preferredUrl: "https://site.test/shoes",
            cause: "redirect",
            size: 2,
            member: {
              url,
              role: "duplicate",
              status: 200,
              indexable: true,
              evidence: ["the same content as https://site.test/shoes"],
              tier: "strong",
              fix: "301 redirect to https://site.test/shoes",
            },
          }
        : null,
    findings: [],
    sitemaps: [{ sitemap: "https://site.test/sitemap.xml", status: 200 }],
    live: false,
    headers: [
      { name: "link", value: '<https://site.test/shoes>; rel="canonical"' },
      { name: "x-robots-tag", value: "noindex" },
      { name: "content-type", value: "text/html" },
      { name: "x-markup", value: "<img src=x onerror=alert(1)><b>bold</b>" },
    ],
    headersOmitted: kind === "404" ? 3 : 0,
    headersStored: kind !== "duplicate",
  };
}

/** A redirect cluster with a member of every kind, signals and a finding. */
export function sampleCluster(): ClusterDetail {
  return {
    id: 4,
    preferredUrl: "https://www.site.test/shoes/",
    cause: "redirect",
    size: 3,
    members: [
      {
        url: "https://www.site.test/shoes/",
        role: "preferred",
        status: 200,
        indexable: true,
        evidence: ["the target of 2 redirects"],
        tier: null,
        fix: null,
      },
      {
        url: "http://site.test/shoes",
        role: "redirects",
        status: 301,
        indexable: false,
        evidence: [
          "redirects (301) to https://site.test/shoes",
          "redirects (301) to https://www.site.test/shoes/",
        ],
        tier: "strong",
        fix: "301 redirect to https://www.site.test/shoes/ in one hop",
      },
      {
        url: "https://www.site.test/shoes/?utm_source=x",
        role: "duplicate",
        status: 200,
        indexable: true,
        evidence: ["same key under seo: rules fired strip-tracking-params; the content is identical"],
        tier: "strong",
        fix: 'add <link rel=canonical href="https://www.site.test/shoes/">',
      },
    ],
    signals: [
      { signal: "redirect", votesFor: "https://www.site.test/shoes/", agrees: true },
      { signal: "sitemap", votesFor: "https://site.test/shoes", agrees: false },
    ],
    findings: [
      {
        key: "k1",
        id: "DUP-HOST",
        severity: "warning",
        family: "duplicates",
        tier: "strong",
        title: "Host variants serve the same page",
        summary: "http://site.test/shoes and https://www.site.test/shoes/ serve the same page",
        why: "Search engines split signals between variants.",
        urls: ["http://site.test/shoes"],
        evidence: ["www and bare host both answer"],
        fixes: ["Redirect the bare host to www."],
      },
    ],
  };
}
