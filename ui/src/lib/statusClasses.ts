// The progress panel's breakdown of a crawl's answers: one labelled count per status class.
import type { StatusCounts } from "./api";

/** One class of answers as the panel shows it. */
export interface StatusClass {
  /** Stable key, also the item's CSS class and `data-class`. */
  key: "success" | "redirect" | "client-error" | "server-error" | "other" | "no-response" | "blocked";
  /** The short label (`2xx`, `No response`, ...). */
  label: string;
  /** What it counts, in a sentence (the tooltip). */
  title: string;
  count: number;
}

/**
 * The classes in the order shown: 2xx, 3xx, 4xx, 5xx, other codes (only when there are any),
 * no response, blocked by robots.txt.
 */
export function statusClasses(counts: StatusCounts): StatusClass[] {
  const all: StatusClass[] = [
    { key: "success", label: "2xx", title: "Answered 2xx (success)", count: counts.success },
    { key: "redirect", label: "3xx", title: "Answered 3xx (redirect)", count: counts.redirect },
    { key: "client-error", label: "4xx", title: "Answered 4xx (client error)", count: counts.clientError },
    { key: "server-error", label: "5xx", title: "Answered 5xx (server error)", count: counts.serverError },
    { key: "other", label: "Other", title: "Answered with another status code", count: counts.other },
    { key: "no-response", label: "No response", title: "No response: timeout, refused or dropped connection", count: counts.noResponse },
    { key: "blocked", label: "Blocked", title: "Not requested: disallowed by robots.txt", count: counts.blocked },
  ];
  return all.filter((c) => c.key !== "other" || c.count > 0);
}
