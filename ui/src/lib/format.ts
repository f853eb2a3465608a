// Formatting of numbers, dates, durations and cells for display (always as plain text).
import type { Cell, ErrorCode } from "./api";
import { ERROR_CODES } from "./api";

/**
 * Turns whatever a rejected command carries (an `IpcError`: a code and a message) into a
 * message the UI can show as text.
 */
export function errorMessage(error: unknown): string {
  if (typeof error === "string") return error;
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error !== null && "message" in error) {
    return String((error as { message: unknown }).message);
  }
  return String(error);
}

/** The kind of error a command rejected with, when it says (`null` otherwise). */
export function errorCode(error: unknown): ErrorCode | null {
  if (typeof error !== "object" || error === null || !("code" in error)) return null;
  const code = (error as { code: unknown }).code;
  return ERROR_CODES.find((known) => known === code) ?? null;
}

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });

/** `12345` → `12,345`. */
export function formatCount(value: number): string {
  return integer.format(value);
}

/** A rate such as pages per second, one decimal. */
export function formatRate(value: number): string {
  return decimal.format(value);
}

/** Milliseconds since the epoch → `2024-05-01 13:45` in local time. */
export function formatDate(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}`
  );
}

/** Milliseconds → `1:05` / `1:02:03`. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours > 0
    ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}`
    : `${minutes}:${seconds}`;
}

/** The text of a table cell (`null` is empty). */
export function cellText(cell: Cell | undefined): string {
  if (cell === null || cell === undefined) return "";
  return typeof cell === "number" ? String(cell) : cell;
}

/** A URL's host, or the text itself when it does not parse. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** Milliseconds since the epoch → `13:45:07` in local time. */
export function formatTime(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/**
 * A table's row count, one count per concept: `2,417 rows`; with a search or column filter
 * of the user's, how many of the rows the table holds without them match (`1 of 214 rows
 * match`), or how many match when that is not known yet. A filter the view itself sets (the
 * issue of the Issues view's URL table) is no filter of the user's: its rows are the table.
 */
export function rowCounts(matched: number, rows: number | null, userFiltered: boolean): string {
  const noun = (n: number) => (n === 1 ? "row" : "rows");
  if (!userFiltered) return `${formatCount(matched)} ${noun(matched)}`;
  if (rows === null) return `${formatCount(matched)} ${noun(matched)} ${matched === 1 ? "matches" : "match"}`;
  return `${formatCount(matched)} of ${formatCount(rows)} ${noun(rows)} ${matched === 1 ? "matches" : "match"}`;
}
