// The one seam between the UI and the desktop shell. Components get a `Backend` from context
// (`useBackend`) and never talk to Tauri themselves; tests pass an in-memory implementation.
import { getContext, setContext } from "svelte";
import type {
  AuditListItem,
  ClusterDetail,
  DiffView,
  FindingPage,
  FindingQuery,
  Overview,
  Progress,
  StartAuditRequest,
  TableName,
  TablePage,
  TableQuery,
} from "./api";

/** Stops an event subscription. */
export type Unsubscribe = () => void;

/** Everything the UI asks of the desktop shell: one method per command, event and dialog. */
export interface Backend {
  listAudits(): Promise<AuditListItem[]>;
  startAudit(request: StartAuditRequest): Promise<number>;
  auditProgress(auditId: number): Promise<Progress | null>;
  cancelAudit(auditId: number): Promise<void>;
  resumeAudit(auditId: number): Promise<number>;
  rerunAudit(auditId: number): Promise<number>;
  deleteAudit(auditId: number): Promise<void>;
  openAudit(auditId: number): Promise<Overview>;
  queryTable(auditId: number, query: TableQuery): Promise<TablePage>;
  clusterDetail(auditId: number, clusterId: number): Promise<ClusterDetail>;
  queryFindings(auditId: number, query: FindingQuery): Promise<FindingPage>;
  compareAudits(oldAudit: number, newAudit: number): Promise<DiffView>;
  exportTable(auditId: number, table: TableName, path: string): Promise<number>;
  exportReport(auditId: number, dir: string): Promise<string[]>;
  /** `audit-progress` events. */
  onProgress(handler: (progress: Progress) => void): Promise<Unsubscribe>;
  /** `audit-finished` events. */
  onFinished(handler: (progress: Progress) => void): Promise<Unsubscribe>;
  /** Asks the user where to save a file; `null` when they cancel. */
  pickSavePath(defaultName: string): Promise<string | null>;
  /** Asks the user for a folder; `null` when they cancel. */
  pickDirectory(): Promise<string | null>;
}

/**
 * Paths that automation (the WebDriver end-to-end test) sets with a script instead of driving a
 * native dialog: when present, the dialogs are skipped and these paths are used.
 */
interface AutomationPaths {
  savePath?: string;
  directory?: string;
}

function automationPaths(): AutomationPaths | undefined {
  const value = (globalThis as { dustpanAutomation?: unknown }).dustpanAutomation;
  return typeof value === "object" && value !== null ? (value as AutomationPaths) : undefined;
}

/** The backend of the desktop app: Tauri commands, events and dialogs. */
export async function tauriBackend(): Promise<Backend> {
  const { invoke } = await import("@tauri-apps/api/core");
  const { listen } = await import("@tauri-apps/api/event");
  const dialog = await import("@tauri-apps/plugin-dialog");
  return {
    listAudits: () => invoke("list_audits"),
    startAudit: (request) => invoke("start_audit", { request }),
    auditProgress: (auditId) => invoke("audit_progress", { auditId }),
    cancelAudit: (auditId) => invoke("cancel_audit", { auditId }),
    resumeAudit: (auditId) => invoke("resume_audit", { auditId }),
    rerunAudit: (auditId) => invoke("rerun_audit", { auditId }),
    deleteAudit: (auditId) => invoke("delete_audit", { auditId }),
    openAudit: (auditId) => invoke("open_audit", { auditId }),
    queryTable: (auditId, query) => invoke("query_table", { auditId, query }),
    clusterDetail: (auditId, clusterId) => invoke("cluster_detail", { auditId, clusterId }),
    queryFindings: (auditId, query) => invoke("query_findings", { auditId, query }),
    compareAudits: (oldAudit, newAudit) => invoke("compare_audits", { oldAudit, newAudit }),
    exportTable: (auditId, table, path) => invoke("export_table", { auditId, table, path }),
    exportReport: (auditId, dir) => invoke("export_report", { auditId, dir }),
    onProgress: (handler) => listen<Progress>("audit-progress", (event) => handler(event.payload)),
    onFinished: (handler) => listen<Progress>("audit-finished", (event) => handler(event.payload)),
    async pickSavePath(defaultName) {
      const preset = automationPaths()?.savePath;
      if (preset) return preset;
      return dialog.save({
        defaultPath: defaultName,
        filters: [{ name: "CSV", extensions: ["csv"] }],
      });
    },
    async pickDirectory() {
      const preset = automationPaths()?.directory;
      if (preset) return preset;
      const chosen = await dialog.open({ directory: true, multiple: false });
      return typeof chosen === "string" ? chosen : null;
    },
  };
}

/** The context key of the backend. */
export const BACKEND = Symbol("backend");

/** Makes `backend` available to every component below the caller. */
export function provideBackend(backend: Backend): void {
  setContext(BACKEND, backend);
}

/** The backend provided by an ancestor component. */
export function useBackend(): Backend {
  const backend = getContext<Backend | undefined>(BACKEND);
  if (!backend) throw new Error("no backend in context");
  return backend;
}
