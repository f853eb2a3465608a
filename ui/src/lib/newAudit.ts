// The new-audit form: its raw fields and their validation into a `StartAuditRequest`.
import type { ListAuditRequest, PresetName, StartAuditRequest } from "./api";

/** The form as typed by the user. */
export interface AuditForm {
  /** "url" crawls from a start URL; "list" audits the URLs of a list or log file. */
  source: "url" | "list";
  url: string;
  /** The list, sitemap, CSV file or access log (list mode). */
  listFile: string;
  /** The site an access log's paths belong to (list mode). */
  site: string;
  /** A user-agent pattern for access logs (list mode). */
  logAgent: string;
  /** Crawl on from the listed URLs (list mode). */
  follow: boolean;
  maxUrls: string;
  maxDepth: string;
  concurrency: string;
  respectRobots: boolean;
  userAgent: string;
  /** "preset" uses `preset`; "file" uses `policyFile`. */
  policyKind: "preset" | "file";
  preset: PresetName;
  policyFile: string;
  /** One `host:port:addr` override per line. */
  resolve: string;
  /** Allow hosts at non-public addresses (the command line's `--allow-internal`). */
  allowInternal: boolean;
  /** Only crawl URLs matching one of these regular expressions, one per line (`--include`). */
  includes: string;
  /** Do not crawl URLs matching these regular expressions, one per line (`--exclude`). */
  excludes: string;
  /** Follow links marked rel=nofollow (off is `--no-follow-nofollow`). */
  followNofollow: boolean;
  /** Probe URL variants after the crawl (off is `--no-probes`). */
  probeVariants: boolean;
  /** Most requests per second to one host (`--rate`); blank for the default. */
  rate: string;
  /** Render every HTML page in headless Chromium too (`--render`). */
  render: boolean;
}

/** A fresh form with the CLI's defaults. */
export function emptyForm(): AuditForm {
  return {
    source: "url",
    url: "",
    listFile: "",
    site: "",
    logAgent: "",
    follow: false,
    maxUrls: "",
    maxDepth: "",
    concurrency: "",
    respectRobots: true,
    userAgent: "",
    policyKind: "preset",
    preset: "seo",
    policyFile: "",
    resolve: "",
    allowInternal: false,
    includes: "",
    excludes: "",
    followNofollow: true,
    probeVariants: true,
    rate: "",
    render: false,
  };
}

/** Messages per field; empty when the form is valid. */
export type FormErrors = Partial<Record<keyof AuditForm, string>>;

/** Either the request to send or the messages to show. */
export type Validated =
  | { ok: true; request: StartAuditRequest; list: ListAuditRequest | null }
  | { ok: false; errors: FormErrors };

/** A host name typed without a scheme (`example.com`, `www.example.com/blog`): audited over https, as the command line does. */
function isBareHost(text: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[^:/]+:\d+(\/|$)/.test(text)) return false;
  try {
    const url = new URL(`https://${text}`);
    return url.hostname === "localhost" || url.hostname.includes(".");
  } catch {
    return false;
  }
}

function checkUrl(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === "") return "Enter the URL to start from, such as https://example.com/.";
  if (isBareHost(trimmed)) return null;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return `"${trimmed}" is not a URL: write it in full, such as https://example.com/.`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return "The URL must start with http:// or https://.";
  }
  if (url.hostname === "") return "The URL has no host name.";
  return null;
}

function parseCount(
  text: string,
  label: string,
  min: number,
  max: number,
): { value: number | null } | { error: string } {
  const trimmed = text.trim();
  if (trimmed === "") return { value: null };
  if (!/^\d+$/.test(trimmed)) return { error: `${label} must be a whole number.` };
  const value = Number(trimmed);
  if (value < min || value > max) return { error: `${label} must be between ${min} and ${max}.` };
  return { value };
}

/** An IPv4 address, or an IPv6 address with or without brackets. */
function isIpAddress(text: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) return v4.slice(1).every((part) => Number(part) <= 255);
  const v6 = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  return v6.includes(":") && /^[0-9a-fA-F:.]+$/.test(v6);
}

/** Checks one `host:port:addr` line; `null` when it is well formed. */
export function checkResolveLine(line: string): string | null {
  const match = /^([^:\s]+):(\d{1,5}):(\S+)$/.exec(line);
  if (!match) return `"${line}" is not host:port:address.`;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return `"${line}": the port must be between 1 and 65535.`;
  if (!isIpAddress(match[3])) return `"${line}": the address must be an IP address such as 127.0.0.1 or [::1].`;
  return null;
}

/** Validates the form; the request is built only when every field is valid. */
export function validateForm(form: AuditForm): Validated {
  const errors: FormErrors = {};
  const listMode = form.source === "list";
  if (listMode) {
    if (form.listFile.trim() === "") errors.listFile = "Choose a URL list, sitemap, CSV file or access log.";
    if (form.site.trim() !== "") {
      const siteError = checkUrl(form.site);
      if (siteError) errors.site = siteError.replace("the URL to start from", "the site");
    }
  } else {
    const urlError = checkUrl(form.url);
    if (urlError) errors.url = urlError;
  }

  const maxUrls = parseCount(form.maxUrls, "Max URLs", 1, 10_000_000);
  if ("error" in maxUrls) errors.maxUrls = maxUrls.error;
  const maxDepth = parseCount(form.maxDepth, "Max depth", 0, 1000);
  if ("error" in maxDepth) errors.maxDepth = maxDepth.error;
  const concurrency = parseCount(form.concurrency, "Concurrency", 1, 256);
  if ("error" in concurrency) errors.concurrency = concurrency.error;

  if (form.policyKind === "file" && form.policyFile.trim() === "") {
    errors.policyFile = "Enter the path of a TOML or JSON policy file, or choose a preset.";
  }

  // One entry per line; spaces and commas separate entries too.
  const resolve = form.resolve
    .split(/[\s,]+/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const resolveError = resolve.map(checkResolveLine).find((message) => message !== null);
  if (resolveError) errors.resolve = resolveError;

  const rateText = form.rate.trim();
  const rate = rateText === "" ? null : Number(rateText);
  if (rate !== null && !(Number.isFinite(rate) && rate > 0 && rate <= 1000)) {
    errors.rate = "Requests per second must be a number above 0, such as 2 or 0.5.";
  }
  const patterns = (text: string) =>
    text
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");

  if (Object.keys(errors).length > 0 || "error" in maxUrls || "error" in maxDepth || "error" in concurrency) {
    return { ok: false, errors };
  }
  const userAgent = form.userAgent.trim();
  const site = form.site.trim();
  const logAgent = form.logAgent.trim();
  return {
    ok: true,
    list: listMode
      ? {
          files: [form.listFile.trim()],
          site: site === "" ? null : site,
          logAgent: logAgent === "" ? null : logAgent,
          follow: form.follow,
        }
      : null,
    request: {
      url: listMode ? "" : form.url.trim(),
      maxUrls: maxUrls.value,
      maxDepth: maxDepth.value,
      concurrency: concurrency.value,
      respectRobots: form.respectRobots,
      userAgent: userAgent === "" ? null : userAgent,
      preset: form.policyKind === "preset" ? form.preset : null,
      policyFile: form.policyKind === "file" ? form.policyFile.trim() : null,
      resolve,
      allowInternal: form.allowInternal,
      includes: patterns(form.includes),
      excludes: patterns(form.excludes),
      followNofollow: form.followNofollow,
      probeVariants: form.probeVariants,
      requestsPerSecond: rate,
      render: form.render,
    },
  };
}
