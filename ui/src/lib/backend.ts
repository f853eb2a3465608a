// The one seam between the UI and the desktop shell. Components get a `Backend` from context
// (`useBackend`) and never talk to Tauri themselves; tests pass an in-memory implementation.
import { getContext, setContext } from "svelte";
import type { Commands, Events, PathPurpose } from "./api";
import { commands, FINISHED_EVENT, PROGRESS_EVENT } from "./api";

/** The kinds of file a save dialog asks for. */
export type SavePurpose = Extract<PathPurpose, "saveCsv" | "saveWorkbook" | "saveHtml">;

/** Stops an event subscription. */
export type Unsubscribe = () => void;

/**
 * Everything the UI asks of the desktop shell: the commands (generated from the shell's list;
 * a failed one rejects with an `IpcError`), its events, and the dialogs (the shell's
 * `choosePath`, asked through the `pick…` methods only).
 */
export interface Backend extends Omit<Commands, "choosePath"> {
  /** `PROGRESS_EVENT` events. */
  onProgress(handler: (progress: Events[typeof PROGRESS_EVENT]) => void): Promise<Unsubscribe>;
  /** `FINISHED_EVENT` events. */
  onFinished(handler: (progress: Events[typeof FINISHED_EVENT]) => void): Promise<Unsubscribe>;
  /** Asks the user where to save a file (a CSV file unless `purpose` says otherwise); `null` when they cancel. */
  pickSavePath(defaultName: string, purpose?: SavePurpose): Promise<string | null>;
  /** Asks the user for a folder; `null` when they cancel. */
  pickDirectory(): Promise<string | null>;
  /** Asks the user for a URL list, sitemap, CSV file or access log to audit; `null` when they cancel. */
  pickListFile(): Promise<string | null>;
  /** Asks the user for a fix plan's folder (written by `dustpan export`) to verify; `null` when they cancel. */
  pickPlanFolder(): Promise<string | null>;
  /** Asks the user for a folder to write a migration's files into; `null` when they cancel. */
  pickMigrationFolder(): Promise<string | null>;
  /** Opens an `http:` or `https:` URL in the default browser (anything else is refused). */
  openUrl(url: string): Promise<void>;
  /** Puts text on the clipboard. */
  copyText(text: string): Promise<void>;
}

/** The URL is one the app may open in a browser: `http:` or `https:`, and well formed. */
export function isWebUrl(url: string): boolean {
  if (!/^https?:\/\//i.test(url)) return false;
  try {
    return ["http:", "https:"].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}

/**
 * Writes `text` to the clipboard through the web clipboard API, or, where the web view refuses
 * it, through a selected hidden text area and the copy command.
 */
export async function writeClipboard(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    // Fall back below.
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  try {
    if (!document.execCommand("copy")) throw new Error("the clipboard is not available");
  } finally {
    area.remove();
  }
}

/**
 * Paths that automation (the WebDriver end-to-end test) sets with a script instead of driving a
 * native dialog: when present, the dialogs are skipped and these paths are used; copies are
 * recorded in `copied` when it is a list.
 */
interface AutomationPaths {
  savePath?: string;
  directory?: string;
  /** The file the "From a list or log file" dialog answers. */
  listFile?: string;
  /** The folder the fix plan's folder dialog answers. */
  planFolder?: string;
  /** The folder the migration's export dialog answers. */
  migrationFolder?: string;
  /** Every text the app put on the clipboard, appended here too. */
  copied?: string[];
}

function automationPaths(): AutomationPaths | undefined {
  const value = (globalThis as { dustpanAutomation?: unknown }).dustpanAutomation;
  return typeof value === "object" && value !== null ? (value as AutomationPaths) : undefined;
}

/** Where the last file dialog ended, remembered across runs. */
const LAST_FOLDER_KEY = "dustpan.lastFolder";

/** The folder of a path chosen in a dialog (either separator). */
export function folderOf(path: string): string | null {
  const at = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  if (at < 0) return null;
  return at === 0 ? path.slice(0, 1) : path.slice(0, at);
}

/** Remembers the folder of `path` for the next dialog. */
export function rememberFolder(path: string | null): void {
  const folder = path === null ? null : folderOf(path);
  if (folder === null) return;
  try {
    localStorage.setItem(LAST_FOLDER_KEY, folder);
  } catch {
    // Storage unavailable: the next dialog starts in the documents folder.
  }
}

/** The folder the last dialog ended in, if any. */
export function lastFolder(): string | null {
  try {
    return localStorage.getItem(LAST_FOLDER_KEY);
  } catch {
    return null;
  }
}

/**
 * The backend of the desktop app: Tauri commands, events and dialogs. The dialogs open in the
 * shell (`choosePath`): the commands that read or write files accept only a path chosen there.
 */
export async function tauriBackend(): Promise<Backend> {
  const { invoke } = await import("@tauri-apps/api/core");
  const { listen } = await import("@tauri-apps/api/event");
  const path = await import("@tauri-apps/api/path");
  const opener = await import("@tauri-apps/plugin-opener");
  const generated = commands(invoke);
  /** Where a dialog starts: the last folder used, else the user's documents folder. */
  const startFolder = async (): Promise<string | null> =>
    lastFolder() ?? (await path.documentDir().catch(() => null));
  /** Opens the shell's dialog for `purpose` (automation answers with its preset instead). */
  const choose = async (
    purpose: PathPurpose,
    preset: string | undefined,
    suggestedName: string | null = null,
  ): Promise<string | null> =>
    generated.choosePath({
      purpose,
      suggestedName,
      startFolder: preset ? null : await startFolder(),
      automationAnswer: preset ?? null,
    });
  return {
    ...generated,
    onProgress: (handler) =>
      listen<Events[typeof PROGRESS_EVENT]>(PROGRESS_EVENT, (event) => handler(event.payload)),
    onFinished: (handler) =>
      listen<Events[typeof FINISHED_EVENT]>(FINISHED_EVENT, (event) => handler(event.payload)),
    async pickSavePath(defaultName, purpose = "saveCsv") {
      const chosen = await choose(purpose, automationPaths()?.savePath, defaultName);
      rememberFolder(chosen);
      return chosen;
    },
    async pickDirectory() {
      const chosen = await choose("reportFolder", automationPaths()?.directory);
      if (chosen === null) return null;
      try {
        localStorage.setItem(LAST_FOLDER_KEY, chosen);
      } catch {
        // Not remembered.
      }
      return chosen;
    },
    async pickListFile() {
      const chosen = await choose("listFile", automationPaths()?.listFile);
      rememberFolder(chosen);
      return chosen;
    },
    async pickPlanFolder() {
      const chosen = await choose("planFolder", automationPaths()?.planFolder);
      rememberFolder(chosen);
      return chosen;
    },
    async pickMigrationFolder() {
      const chosen = await choose("migrationFolder", automationPaths()?.migrationFolder);
      rememberFolder(chosen);
      return chosen;
    },
    async openUrl(url) {
      if (!isWebUrl(url)) throw new Error(`only http and https URLs open in a browser: ${url}`);
      try {
        await opener.openUrl(url);
      } catch {
        // The launcher's own error (no browser installed, no desktop session) says nothing
        // a person can act on.
        throw new Error("no web browser could be started on this computer; copy the URL and open it yourself");
      }
    },
    async copyText(text) {
      await writeClipboard(text);
      const copied = automationPaths()?.copied;
      if (Array.isArray(copied)) copied.push(text);
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
