// The live progress of every audit this window has heard of, fed by `audit-progress` and
// `audit-finished` events, shared by the views through context.
import { getContext, setContext } from "svelte";
import { SvelteMap } from "svelte/reactivity";
import type { Progress } from "./api";
import { FINAL_PHASES } from "./api";
import type { Backend, Unsubscribe } from "./backend";

/** Live progress per audit id. */
export class ProgressBoard {
  readonly byAudit = new SvelteMap<number, Progress>();
  /** Bumped at each `audit-finished`, so lists can refresh. */
  finishedCount = $state(0);
  private stops: Unsubscribe[] = [];

  /** Subscribes to the backend's events; `stop` ends the subscriptions. */
  async listen(backend: Backend): Promise<void> {
    this.stops.push(await backend.onProgress((progress) => this.update(progress)));
    this.stops.push(
      await backend.onFinished((progress) => {
        this.update(progress);
        this.finishedCount++;
      }),
    );
  }

  /** Records `progress` unless a final phase for the audit is already known. */
  update(progress: Progress): void {
    const known = this.byAudit.get(progress.auditId);
    if (known && FINAL_PHASES.includes(known.phase) && !FINAL_PHASES.includes(progress.phase)) {
      // A late throttled event after the end: keep the final state.
      if (progress.elapsedMs <= known.elapsedMs) return;
    }
    this.byAudit.set(progress.auditId, progress);
  }

  /** Forgets an audit (before it is resumed or after it is deleted). */
  forget(auditId: number): void {
    this.byAudit.delete(auditId);
  }

  stop(): void {
    for (const stop of this.stops.splice(0)) stop();
  }
}

/** The context key of the progress board. */
export const BOARD = Symbol("progress");

/** Makes `board` available to every component below the caller. */
export function provideProgress(board: ProgressBoard): void {
  setContext(BOARD, board);
}

/** The progress board provided by an ancestor component. */
export function useProgress(): ProgressBoard {
  const board = getContext<ProgressBoard | undefined>(BOARD);
  if (!board) throw new Error("no progress board in context");
  return board;
}
