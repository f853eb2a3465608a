//! Which rules run, and their options.

use crate::error::PolicyError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;

/// A named starting point for a [`Policy`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// Safe rules only: never changes which resource a URL names.
    Rfc3986,
    /// The audit default: safe rules plus the SEO rules that rarely over-merge.
    #[default]
    Seo,
    /// Every rule, including opt-in ones (trailing slash, case-insensitive paths).
    Aggressive,
}

impl Preset {
    /// The preset's policy.
    pub fn policy(self) -> Policy {
        match self {
            Preset::Rfc3986 => Policy::rfc3986(),
            Preset::Seo => Policy::seo(),
            Preset::Aggressive => Policy::aggressive(),
        }
    }

    /// The preset's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Preset::Rfc3986 => "rfc3986",
            Preset::Seo => "seo",
            Preset::Aggressive => "aggressive",
        }
    }
}

impl FromStr for Preset {
    type Err = PolicyError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "rfc3986" | "safe" => Ok(Preset::Rfc3986),
            "seo" => Ok(Preset::Seo),
            "default" => Ok(Preset::default()),
            "aggressive" | "all" => Ok(Preset::Aggressive),
            _ => Err(PolicyError::UnknownPreset(s.to_owned())),
        }
    }
}

/// What to do with the trailing slash of a directory-like path (one whose last
/// segment has no dot).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrailingSlash {
    /// Leave paths as they are.
    Keep,
    /// `/foo` -> `/foo/` (RFC 3986 section 6.2.4).
    Add,
    /// `/foo/` -> `/foo` (never for the root path).
    Remove,
}

/// What to do with a leading `www.` label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Www {
    /// Leave hosts as they are.
    Keep,
    /// `www.example.com` -> `example.com` (never down to a bare public suffix).
    Strip,
    /// `example.com` -> `www.example.com` (only for a registrable domain itself).
    Add,
}

/// Which scheme http and https URLs on default ports are unified to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PreferScheme {
    /// Leave the scheme as it is.
    Keep,
    /// `http://` -> `https://`
    Https,
    /// `https://` -> `http://`
    Http,
}

/// Parameter handling for the paths that match `path`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PathParams {
    /// An exact path (`/display`), or a prefix ending in `*` (`/search/*`).
    pub path: String,
    /// If set, only these parameters are kept on matching paths.
    pub keep_only: Option<Vec<String>>,
    /// Parameters dropped on matching paths.
    pub drop: Vec<String>,
    /// Parameter values that are the page's default: `sort = "ascending"` drops
    /// `sort=ascending` but keeps `sort=descending`.
    pub defaults: BTreeMap<String, String>,
}

impl PathParams {
    pub(crate) fn matches(&self, path: &str) -> bool {
        match self.path.strip_suffix('*') {
            Some(prefix) => path.starts_with(prefix),
            None => self.path == path,
        }
    }
}

/// The normalization policy: which rules run and how.
///
/// Safe-class rules always run (the URL parser applies most of them; none changes
/// which resource a URL names). A policy file (TOML or JSON) may start from a preset
/// with `extends = "seo"` and override any field:
///
/// ```toml
/// extends = "seo"
/// www = "keep"
/// trailing_slash = "add"
/// drop_params = ["back"]
///
/// [[params]]
/// path = "/display"
/// keep_only = ["id"]
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// Strip the trailing dot of a fully qualified host (`example.com.`).
    pub strip_host_trailing_dot: bool,
    /// The server's paths are case-insensitive (IIS, some CDNs): lowercase the path.
    pub case_insensitive_paths: bool,
    /// Remove session path parameters named in `session_params` (`;jsessionid=..`).
    pub remove_session_path_params: bool,
    /// Collapse `//` in paths.
    pub collapse_slashes: bool,
    /// Directory index file names removed from the end of a path; empty turns the rule off.
    pub directory_indexes: Vec<String>,
    /// Trailing slash handling for directory-like paths.
    pub trailing_slash: TrailingSlash,
    /// Leading `www.` handling.
    pub www: Www,
    /// Scheme unification for default ports.
    pub prefer_scheme: PreferScheme,
    /// Standardize query encoding (`+` vs `%20`, reserved characters escaped).
    pub normalize_query_encoding: bool,
    /// Remove empty query components and an empty `?`.
    pub remove_empty_query: bool,
    /// Remove tracking parameters named in `tracking_params`.
    pub remove_tracking_params: bool,
    /// Tracking parameter names, ASCII case-insensitive; a trailing `*` matches a prefix.
    pub tracking_params: Vec<String>,
    /// Remove session parameters named in `session_params`.
    pub remove_session_params: bool,
    /// Session parameter names (query or path parameters), ASCII case-insensitive.
    pub session_params: Vec<String>,
    /// Site-specific parameters dropped on every path.
    pub drop_params: Vec<String>,
    /// Site-specific parameter handling per path.
    pub params: Vec<PathParams>,
    /// Drop parameters with an empty value (`?id=`).
    pub drop_empty_values: bool,
    /// Sort query parameters by name (stable for repeated names).
    pub sort_query: bool,
    /// Remove the fragment.
    pub remove_fragment: bool,
    /// Inputs longer than this many bytes are rejected.
    pub max_length: usize,
}

/// The default directory index names.
pub const DEFAULT_DIRECTORY_INDEXES: &[&str] = &[
    "index.html",
    "index.htm",
    "index.php",
    "index.shtml",
    "index.asp",
    "index.aspx",
    "index.jsp",
    "index.cfm",
    "index.cgi",
    "default.asp",
    "default.aspx",
    "default.htm",
    "default.html",
    "home.html",
];

/// The default tracking parameters: analytics and ad-click identifiers that never
/// change a page.
pub const DEFAULT_TRACKING_PARAMS: &[&str] = &[
    "utm_*",
    "gclid",
    "gclsrc",
    "gbraid",
    "wbraid",
    "dclid",
    "gad_source",
    "fbclid",
    "msclkid",
    "yclid",
    "ttclid",
    "twclid",
    "li_fat_id",
    "igshid",
    "mc_cid",
    "mc_eid",
    "_ga",
    "_gl",
    "_hsenc",
    "_hsmi",
    "__hssc",
    "__hstc",
    "__hsfp",
    "hsctatracking",
    "mkt_tok",
    "vero_id",
    "vero_conv",
    "oly_anon_id",
    "oly_enc_id",
    "rb_clickid",
    "s_kwcid",
    "ef_id",
    "epik",
    "pk_*",
    "piwik_*",
    "mtm_*",
    "matomo_*",
    "srsltid",
];

/// The default session parameters (query parameters and `;name=` path parameters).
pub const DEFAULT_SESSION_PARAMS: &[&str] = &[
    "jsessionid",
    "phpsessid",
    "aspsessionid*",
    "asp.net_sessionid",
    "sid",
    "sessionid",
    "session_id",
    "sessid",
    "cfid",
    "cftoken",
    "zenid",
    "oscsid",
];

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

impl Policy {
    /// Safe rules only.
    pub fn rfc3986() -> Policy {
        Policy {
            strip_host_trailing_dot: false,
            case_insensitive_paths: false,
            remove_session_path_params: false,
            collapse_slashes: false,
            directory_indexes: Vec::new(),
            trailing_slash: TrailingSlash::Keep,
            www: Www::Keep,
            prefer_scheme: PreferScheme::Keep,
            normalize_query_encoding: false,
            remove_empty_query: false,
            remove_tracking_params: false,
            tracking_params: strings(DEFAULT_TRACKING_PARAMS),
            remove_session_params: false,
            session_params: strings(DEFAULT_SESSION_PARAMS),
            drop_params: Vec::new(),
            params: Vec::new(),
            drop_empty_values: false,
            sort_query: false,
            remove_fragment: false,
            max_length: 8192,
        }
    }

    /// The audit default: safe rules, plus host trailing dot, session path and query
    /// parameters, duplicate slashes, directory indexes, `www` stripped, query
    /// encoding, empty query, tracking parameters, query sorting and the fragment.
    /// The scheme, trailing slashes and path case are left alone: which scheme a site
    /// prefers shows in its redirects, and the audit confirms slash and case variants
    /// by content rather than assuming them.
    pub fn seo() -> Policy {
        Policy {
            strip_host_trailing_dot: true,
            remove_session_path_params: true,
            collapse_slashes: true,
            directory_indexes: strings(DEFAULT_DIRECTORY_INDEXES),
            www: Www::Strip,
            normalize_query_encoding: true,
            remove_empty_query: true,
            remove_tracking_params: true,
            remove_session_params: true,
            sort_query: true,
            remove_fragment: true,
            ..Policy::rfc3986()
        }
    }

    /// Every rule: the `seo` preset plus https preferred, trailing slashes added,
    /// case-insensitive paths and empty parameter values dropped.
    pub fn aggressive() -> Policy {
        Policy {
            prefer_scheme: PreferScheme::Https,
            case_insensitive_paths: true,
            trailing_slash: TrailingSlash::Add,
            drop_empty_values: true,
            ..Policy::seo()
        }
    }

    /// Parses a TOML policy (see the type's docs).
    pub fn from_toml_str(text: &str) -> Result<Policy, PolicyError> {
        let value: serde_json::Value =
            toml::from_str(text).map_err(|e| PolicyError::Toml(e.to_string()))?;
        Policy::from_value(value).map_err(PolicyError::Toml)
    }

    /// Parses a JSON policy (see the type's docs).
    pub fn from_json_str(text: &str) -> Result<Policy, PolicyError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| PolicyError::Json(e.to_string()))?;
        Policy::from_value(value).map_err(PolicyError::Json)
    }

    /// Loads a policy file: JSON when the name ends in `.json`, TOML otherwise.
    pub fn from_path(path: &Path) -> Result<Policy, PolicyError> {
        let text = std::fs::read_to_string(path).map_err(|source| PolicyError::Io {
            path: path.display().to_string(),
            source,
        })?;
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        {
            Policy::from_json_str(&text)
        } else {
            Policy::from_toml_str(&text)
        }
    }

    fn from_value(value: serde_json::Value) -> Result<Policy, String> {
        let serde_json::Value::Object(mut fields) = value else {
            return Err("a policy must be a table of settings".to_owned());
        };
        let base = match fields.remove("extends") {
            None => Preset::Seo,
            Some(serde_json::Value::String(name)) => name.parse().map_err(|e| format!("{e}"))?,
            Some(other) => return Err(format!("`extends` must be a preset name, not {other}")),
        };
        let serde_json::Value::Object(mut merged) =
            serde_json::to_value(base.policy()).map_err(|e| e.to_string())?
        else {
            return Err("internal: preset did not serialize to a table".to_owned());
        };
        merged.extend(fields);
        serde_json::from_value(serde_json::Value::Object(merged)).map_err(|e| e.to_string())
    }

    /// Whether `name` is one of the policy's tracking parameter names (whether or not
    /// the policy removes them).
    pub fn names_tracking_param(&self, name: &str) -> bool {
        name_matches(&self.tracking_params, name)
    }

    /// Whether `name` is one of the policy's session parameter names.
    pub fn names_session_param(&self, name: &str) -> bool {
        name_matches(&self.session_params, name)
    }

    pub(crate) fn is_tracking(&self, name: &str) -> bool {
        self.remove_tracking_params && name_matches(&self.tracking_params, name)
    }

    pub(crate) fn is_session(&self, name: &str) -> bool {
        name_matches(&self.session_params, name)
    }

    pub(crate) fn touches_query(&self) -> bool {
        self.normalize_query_encoding
            || self.remove_empty_query
            || self.remove_tracking_params
            || self.remove_session_params
            || !self.drop_params.is_empty()
            || !self.params.is_empty()
            || self.drop_empty_values
            || self.sort_query
    }
}

impl Default for Policy {
    /// The default preset's policy ([`Preset::default`]).
    fn default() -> Policy {
        Preset::default().policy()
    }
}

/// Whether `name` matches one of the patterns: ASCII case-insensitive, a trailing `*`
/// matches any suffix.
pub(crate) fn name_matches(patterns: &[String], name: &str) -> bool {
    patterns.iter().any(|p| match p.strip_suffix('*') {
        Some(prefix) => {
            name.len() >= prefix.len()
                && name.is_char_boundary(prefix.len())
                && name[..prefix.len()].eq_ignore_ascii_case(prefix)
        }
        None => p.eq_ignore_ascii_case(name),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_extends_and_overrides() {
        let p = Policy::from_toml_str(
            "extends = \"rfc3986\"\nremove_fragment = true\n[[params]]\npath = \"/display\"\nkeep_only = [\"id\"]\n",
        )
        .unwrap();
        assert!(p.remove_fragment);
        assert!(!p.sort_query);
        assert_eq!(
            p.params[0].keep_only.as_deref(),
            Some(&["id".to_owned()][..])
        );
    }

    #[test]
    fn json_defaults_to_seo() {
        let p = Policy::from_json_str("{\"www\": \"keep\"}").unwrap();
        assert_eq!(p.www, Www::Keep);
        assert!(p.sort_query);
    }

    #[test]
    fn unknown_keys_are_rejected() {
        assert!(Policy::from_toml_str("sort_querry = true").is_err());
        assert!(matches!(
            Policy::from_toml_str("extends = \"nope\""),
            Err(PolicyError::Toml(_))
        ));
    }

    #[test]
    fn patterns() {
        let pats = strings(&["utm_*", "gclid"]);
        assert!(name_matches(&pats, "UTM_source"));
        assert!(name_matches(&pats, "gclid"));
        assert!(!name_matches(&pats, "gclidx"));
        assert!(!name_matches(&pats, "utm"));
    }
}
