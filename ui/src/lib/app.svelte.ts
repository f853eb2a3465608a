// Where the user is: the current view, the opened audit and its overview. Shared by the views
// through context so that the left navigation and every view agree.
import { getContext, setContext } from "svelte";
import type { Family, Overview, TableName } from "./api";
import type { Backend } from "./backend";
import { errorMessage } from "./format";
import { emptyForm, type AuditForm } from "./newAudit";

/** The views of the left navigation, plus the page of one cluster. */
export type View =
  | "new"
  | "audits"
  | "overview"
  | "issues"
  | "clusters"
  | "cluster"
  | "findings"
  | "tables"
  | "fixplan"
  | "compare"
  | "migrate";

/** Views that need an opened audit. */
export const AUDIT_VIEWS: readonly View[] = ["overview", "issues", "clusters", "cluster", "findings", "tables", "fixplan"];

/** Navigation and the opened audit. */
export class AppState {
  view = $state<View>("new");
  auditId = $state<number | null>(null);
  overview = $state<Overview | null>(null);
  opening = $state(false);
  openError = $state<string | null>(null);
  clusterId = $state<number | null>(null);
  table = $state<TableName>("pages");
  /** The family the findings view is filtered by (`null` for all). */
  findingsFamily = $state<Family | null>(null);
  /** The finding code the Issues view has selected (`null`: the first issue). */
  issueCode = $state<string | null>(null);
  compareOld = $state<number | null>(null);
  compareNew = $state<number | null>(null);
  /** The new-audit form as typed, kept while the user visits other views. */
  newAuditForm = $state<AuditForm>(emptyForm());
  /** The audit whose progress the new-audit view shows. */
  watching = $state<number | null>(null);
  private backend: Backend;
  private openToken = 0;

  constructor(backend: Backend) {
    this.backend = backend;
  }

  go(view: View): void {
    this.view = view;
  }

  /** Opens an audit (load + analysis happen on the Rust side) and shows its overview. */
  async open(auditId: number, view: View = "overview"): Promise<void> {
    const token = ++this.openToken;
    this.auditId = auditId;
    this.overview = null;
    this.openError = null;
    this.opening = true;
    this.clusterId = null;
    this.findingsFamily = null;
    this.issueCode = null;
    this.view = view;
    try {
      const overview = await this.backend.openAudit(auditId);
      if (token === this.openToken) this.overview = overview;
    } catch (error) {
      if (token === this.openToken) this.openError = errorMessage(error);
    } finally {
      if (token === this.openToken) this.opening = false;
    }
  }

  /** Closes the opened audit (after it was deleted). */
  close(): void {
    this.openToken++;
    this.auditId = null;
    this.overview = null;
    this.openError = null;
    this.opening = false;
    this.clusterId = null;
    if (AUDIT_VIEWS.includes(this.view)) this.view = "audits";
  }

  showCluster(clusterId: number): void {
    this.clusterId = clusterId;
    this.view = "cluster";
  }

  showFindings(family: Family | null): void {
    this.findingsFamily = family;
    this.view = "findings";
  }

  /** Shows the Issues view with one issue selected. */
  showIssue(code: string): void {
    this.issueCode = code;
    this.view = "issues";
  }

  showTable(table: TableName): void {
    this.table = table;
    this.view = "tables";
  }

  /** Shows the progress of `auditId` (just started, re-run or resumed). */
  watch(auditId: number): void {
    this.watching = auditId;
    this.view = "new";
  }

  compare(oldAudit: number, newAudit: number): void {
    this.compareOld = oldAudit;
    this.compareNew = newAudit;
    this.view = "compare";
  }
}

/** The context key of the app state. */
export const APP = Symbol("app");

/** Makes `state` available to every component below the caller. */
export function provideApp(state: AppState): void {
  setContext(APP, state);
}

/** The app state provided by an ancestor component. */
export function useApp(): AppState {
  const state = getContext<AppState | undefined>(APP);
  if (!state) throw new Error("no app state in context");
  return state;
}
