// An in-memory backend with the same interface as the Tauri one: real paging, sorting, search
// and filters over rows held in memory, events emitted by the test, and a log of every call.
import type {
  AuditListItem,
  Cell,
  ClusterDetail,
  Column,
  DiffView,
  FindingPage,
  FindingQuery,
  FindingView,
  Overview,
  Progress,
  StartAuditRequest,
  TableName,
  TablePage,
  TableQuery,
} from "../src/lib/api";
import type { Backend, Unsubscribe } from "../src/lib/backend";

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

export class FakeBackend implements Backend {
  calls: Call[] = [];
  audits: AuditListItem[] = [];
  tables = new Map<TableName, FakeTable>();
  clusters = new Map<number, ClusterDetail>();
  findings: FindingView[] = [];
  overview: Overview | null = null;
  diff: DiffView | null = null;
  progress = new Map<number, Progress>();
  nextAuditId = 100;
  savePath: string | null = "/tmp/out.csv";
  directory: string | null = "/tmp/report";
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
    if (!this.overview) throw "no such audit";
    return { ...structuredClone(this.overview), auditId };
  }

  async queryTable(auditId: number, query: TableQuery): Promise<TablePage> {
    this.log("queryTable", auditId, query);
    if (this.holdQueries) await new Promise<void>((resume) => this.held.push(resume));
    const table = this.tables.get(query.table);
    if (!table) throw `unknown table ${query.table}`;
    let order = table.rows.map((_, index) => index);
    const needle = query.search?.toLowerCase();
    if (needle) {
      order = order.filter((i) => table.rows[i].some((cell) => text(cell).toLowerCase().includes(needle)));
    }
    for (const filter of query.filters) {
      const c = table.columns.findIndex((column) => column.key === filter.column);
      if (c < 0) throw `unknown column ${filter.column}`;
      order = order.filter((i) => text(table.rows[i][c]) === filter.equals);
    }
    if (query.sort) {
      const c = table.columns.findIndex((column) => column.key === query.sort?.column);
      if (c < 0) throw `unknown column ${query.sort.column}`;
      const numeric = table.columns[c].kind === "number";
      const sign = query.sort.descending ? -1 : 1;
      order.sort((a, b) => {
        const x = table.rows[a][c];
        const y = table.rows[b][c];
        const diff = numeric ? Number(x) - Number(y) : text(x).localeCompare(text(y));
        return sign * diff || a - b;
      });
    }
    const limit = Math.min(query.limit, 1000);
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

  async clusterDetail(auditId: number, clusterId: number): Promise<ClusterDetail> {
    this.log("clusterDetail", auditId, clusterId);
    const detail = this.clusters.get(clusterId);
    if (!detail) throw `no cluster ${clusterId}`;
    return structuredClone(detail);
  }

  async queryFindings(auditId: number, query: FindingQuery): Promise<FindingPage> {
    this.log("queryFindings", auditId, query);
    const needle = query.search?.toLowerCase();
    const matched = this.findings.filter(
      (finding) =>
        (query.severity === null || finding.severity === query.severity) &&
        (query.family === null || finding.family === query.family) &&
        (!needle || [finding.id, finding.title, ...finding.urls].some((t) => t.toLowerCase().includes(needle))),
    );
    return {
      total: this.findings.length,
      matched: matched.length,
      offset: query.offset,
      items: structuredClone(matched.slice(query.offset, query.offset + query.limit)),
    };
  }

  async compareAudits(oldAudit: number, newAudit: number): Promise<DiffView> {
    this.log("compareAudits", oldAudit, newAudit);
    if (!this.diff) throw "nothing to compare";
    return structuredClone(this.diff);
  }

  async exportTable(auditId: number, table: TableName, path: string): Promise<number> {
    this.log("exportTable", auditId, table, path);
    return this.tables.get(table)?.rows.length ?? 0;
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

  async pickSavePath(defaultName: string): Promise<string | null> {
    this.log("pickSavePath", defaultName);
    return this.savePath;
  }

  async pickDirectory(): Promise<string | null> {
    this.log("pickDirectory");
    return this.directory;
  }
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
      { signal: "redirects", votesFor: "https://www.site.test/shoes/", agrees: true },
      { signal: "sitemaps", votesFor: "https://site.test/shoes", agrees: false },
    ],
    findings: [
      {
        key: "k1",
        id: "DUP-HOST-VARIANT",
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
