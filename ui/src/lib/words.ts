// Plain words for the codes a few tables hold: the URL-variant rules (`host_www`) and what the
// server answered their variants (`redirect_permanent`, `not_probed`). A cell shows the words;
// its tooltip, the filters, the copy and the CSV export keep the code.
import type { TableName } from "./api";

/** Each URL-variant rule, said as the variants it makes. */
const VARIANT_RULES: Record<string, string> = {
  host_www: "Other host name (www. added or removed)",
  scheme: "Other scheme (http or https)",
  trailing_slash: "Trailing slash added or removed",
  path_case: "Path in upper case",
  index_file: "Index file name added (index.html)",
  double_slash: "A slash doubled (//)",
  tracking_param: "Tracking parameter added (utm_source)",
  session_param: "Session parameter added (sessionid)",
  unknown_param: "Unknown parameter added",
  empty_query: "Empty query (a bare ?)",
  ip_host: "The server's IP address as host",
};

/** What the server answered a rule's variants. */
const VARIANT_VERDICTS: Record<string, string> = {
  duplicate: "Same page again (a duplicate)",
  redirect_temporary: "Temporary redirect (302, 307)",
  redirect_permanent: "Permanent redirect (301, 308)",
  redirect_elsewhere: "Redirect to another page",
  different: "A different page",
  canonical: "Same page, canonical to the original",
  gone: "Not found (404, 410)",
  error: "No answer (error)",
  not_fetched: "Not fetched",
  not_probed: "Not tested (no sample)",
};

/** Per table, the columns whose codes are said in words. */
const WORDS: Partial<Record<TableName, Record<string, Record<string, string>>>> = {
  urlVariants: { rule: VARIANT_RULES, verdict: VARIANT_VERDICTS },
};

/** The words for `code` in column `column` of `table`, or `null` when it is not a code said in words. */
export function plainWords(table: TableName, column: string, code: string): string | null {
  return WORDS[table]?.[column]?.[code] ?? null;
}
