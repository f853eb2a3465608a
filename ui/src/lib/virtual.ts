// Windowing maths and on-demand paging for the virtualised tables: which rows are on screen,
// which pages hold them, and a cache that fetches each page once per query.
import type { Cell, Column, TablePage } from "./api";
import { errorMessage } from "./format";

/** A half-open range of row indices `[start, end)`. */
export interface RowRange {
  start: number;
  end: number;
}

/**
 * The rows to render for a viewport: those visible at `scrollTop`, plus `overscan` rows on each
 * side, clamped to `[0, count)`.
 */
export function visibleRange(
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  count: number,
  overscan = 8,
): RowRange {
  if (count <= 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const top = Math.max(0, scrollTop);
  const first = Math.min(count - 1, Math.floor(top / rowHeight));
  const lastVisible = Math.ceil((top + Math.max(0, viewportHeight)) / rowHeight);
  return {
    start: Math.max(0, first - overscan),
    end: Math.min(count, Math.max(first + 1, lastVisible) + overscan),
  };
}

/** Indices of the pages of `pageSize` rows that hold the rows of `range`. */
export function pagesFor(range: RowRange, pageSize: number): number[] {
  if (range.end <= range.start || pageSize <= 0) return [];
  const first = Math.floor(range.start / pageSize);
  const last = Math.floor((range.end - 1) / pageSize);
  const pages: number[] = [];
  for (let page = first; page <= last; page++) pages.push(page);
  return pages;
}

/** The scroll offset that brings row `index` fully into a viewport, or `scrollTop` if it is. */
export function scrollToReveal(
  index: number,
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
): number {
  const top = index * rowHeight;
  const bottom = top + rowHeight;
  if (top < scrollTop) return top;
  if (bottom > scrollTop + viewportHeight) return Math.max(0, bottom - viewportHeight);
  return scrollTop;
}

/** Fetches rows `[offset, offset + limit)` of the current query. */
export type PageFetcher = (offset: number, limit: number) => Promise<TablePage>;

/** What the table knows after the latest answer. */
export interface PagedState {
  columns: Column[];
  total: number;
  matched: number;
  /** Bumped whenever rows arrive or the cache is cleared, so views can re-render. */
  version: number;
  error: string | null;
  /** A page of the table has answered (or failed): until then its counts are not known. */
  answered: boolean;
}

/**
 * Rows of one query, fetched a page at a time on demand and kept in a bounded cache. `reset`
 * starts a new query: answers to the old one that arrive later are dropped.
 */
export class PagedRows {
  readonly pageSize: number;
  readonly maxPages: number;
  private pages = new Map<number, { rows: Cell[][]; keys: string[] }>();
  private inFlight = new Set<number>();
  private generation = 0;
  private fetcher: PageFetcher;
  private listener: (state: PagedState) => void;
  state: PagedState = { columns: [], total: 0, matched: 0, version: 0, error: null, answered: false };

  constructor(
    fetcher: PageFetcher,
    listener: (state: PagedState) => void,
    pageSize = 200,
    maxPages = 60,
  ) {
    this.fetcher = fetcher;
    this.listener = listener;
    this.pageSize = pageSize;
    this.maxPages = maxPages;
  }

  /** Starts a new query (new sort, search or filters). */
  reset(fetcher?: PageFetcher): void {
    if (fetcher) this.fetcher = fetcher;
    this.generation++;
    this.pages.clear();
    this.inFlight.clear();
    this.emit({ error: null });
  }

  /** Fetches the pages holding `range` that are neither cached nor being fetched. */
  ensure(range: RowRange): Promise<void> {
    const wanted = pagesFor(range, this.pageSize).filter(
      (page) => !this.pages.has(page) && !this.inFlight.has(page),
    );
    return Promise.all(wanted.map((page) => this.load(page))).then(() => undefined);
  }

  /** The first page, fetched whatever the viewport (it also tells the column set and counts). */
  start(): Promise<void> {
    return this.ensure({ start: 0, end: 1 });
  }

  /** Row `index`, or `undefined` while its page is not here. */
  row(index: number): Cell[] | undefined {
    const page = this.pages.get(Math.floor(index / this.pageSize));
    return page?.rows[index % this.pageSize];
  }

  /** The stable key of row `index`, or `undefined` while its page is not here. */
  key(index: number): string | undefined {
    const page = this.pages.get(Math.floor(index / this.pageSize));
    return page?.keys[index % this.pageSize];
  }

  /**
   * Rows at `indices`, in that order: from the cache, or fetched a page at a time for the purpose
   * (without caching them). Rejects when the query changes meanwhile.
   */
  async rowsAt(indices: readonly number[]): Promise<Cell[][]> {
    const generation = this.generation;
    const found = new Map<number, Cell[]>();
    const missing = new Set<number>();
    for (const index of indices) {
      const row = this.row(index);
      if (row) found.set(index, row);
      else missing.add(Math.floor(index / this.pageSize));
    }
    for (const page of [...missing].sort((a, b) => a - b)) {
      const answer = await this.fetcher(page * this.pageSize, this.pageSize);
      if (generation !== this.generation) throw new Error("the table changed while its rows were read");
      answer.rows.forEach((row, k) => found.set(page * this.pageSize + k, row));
    }
    return indices.flatMap((index) => {
      const row = found.get(index);
      return row ? [row] : [];
    });
  }

  /** How many pages are cached (bounded by `maxPages`). */
  get cachedPages(): number {
    return this.pages.size;
  }

  private async load(page: number): Promise<void> {
    const generation = this.generation;
    this.inFlight.add(page);
    try {
      const answer = await this.fetcher(page * this.pageSize, this.pageSize);
      if (generation !== this.generation) return;
      this.pages.delete(page);
      this.pages.set(page, { rows: answer.rows, keys: answer.rowKeys });
      this.evict(page);
      this.emit({
        columns: answer.columns,
        total: answer.total,
        matched: answer.matched,
        error: null,
        answered: true,
      });
    } catch (error) {
      if (generation !== this.generation) return;
      this.emit({ error: errorMessage(error), answered: true });
    } finally {
      if (generation === this.generation) this.inFlight.delete(page);
    }
  }

  /** Drops the pages farthest from `keep` once the cache is over its bound. */
  private evict(keep: number): void {
    if (this.pages.size <= this.maxPages) return;
    const byDistance = [...this.pages.keys()].sort(
      (a, b) => Math.abs(b - keep) - Math.abs(a - keep),
    );
    for (const page of byDistance.slice(0, this.pages.size - this.maxPages)) {
      this.pages.delete(page);
    }
  }

  private emit(change: Partial<PagedState>): void {
    this.state = { ...this.state, ...change, version: this.state.version + 1 };
    this.listener(this.state);
  }
}
