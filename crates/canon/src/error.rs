//! Why a string could not be normalized.

use thiserror::Error;

/// What kind of non-web URL a rejected input was, so callers can classify links
/// (a `mailto:` link is not a broken link).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemeKind {
    /// `mailto:`
    Mail,
    /// `tel:`, `sms:`, `callto:`
    Phone,
    /// `javascript:`
    Script,
    /// `data:`, `blob:`
    Inline,
    /// `ftp:`, `file:`, `ws:`, `wss:` and other schemes with hosts.
    OtherNetwork,
    /// Anything else (`about:`, `chrome:`, app schemes, ...).
    Other,
}

impl SchemeKind {
    /// Classifies a lowercase scheme name.
    pub fn of(scheme: &str) -> SchemeKind {
        match scheme {
            "mailto" => SchemeKind::Mail,
            "tel" | "sms" | "callto" | "fax" => SchemeKind::Phone,
            "javascript" | "vbscript" => SchemeKind::Script,
            "data" | "blob" => SchemeKind::Inline,
            "ftp" | "ftps" | "file" | "ws" | "wss" | "gopher" | "news" | "nntp" => {
                SchemeKind::OtherNetwork
            }
            _ => SchemeKind::Other,
        }
    }
}

/// Why an input is not a normalizable http(s) URL.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CanonError {
    /// The input is empty or only whitespace.
    #[error("empty URL")]
    Empty,
    /// The input has no scheme (a relative reference); resolve it against a base first.
    #[error("not an absolute URL: {input:?}")]
    NotAbsolute {
        /// The input, shortened for display.
        input: String,
    },
    /// The scheme is not http or https.
    #[error("unsupported scheme {scheme:?}")]
    UnsupportedScheme {
        /// The lowercased scheme.
        scheme: String,
        /// What kind of scheme it is.
        kind: SchemeKind,
    },
    /// The host is missing or not a valid host name or address.
    #[error("invalid host: {reason}")]
    InvalidHost {
        /// What is wrong with it.
        reason: String,
    },
    /// The input is longer than the policy's limit.
    #[error("URL is {len} bytes long, over the limit of {max}")]
    TooLong {
        /// The input's length in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The input contains a control character (C0 or DEL) inside it.
    #[error("control character 0x{byte:02X} at byte {position}")]
    ControlCharacter {
        /// Byte offset in the trimmed input.
        position: usize,
        /// The offending byte.
        byte: u8,
    },
    /// The URL parser rejected the input for another reason.
    #[error("invalid URL: {reason}")]
    Invalid {
        /// The parser's reason.
        reason: String,
    },
}

impl CanonError {
    /// A stable short name for the error, for TSV output and exports.
    pub fn kind(&self) -> &'static str {
        match self {
            CanonError::Empty => "empty",
            CanonError::NotAbsolute { .. } => "not_absolute",
            CanonError::UnsupportedScheme { .. } => "unsupported_scheme",
            CanonError::InvalidHost { .. } => "invalid_host",
            CanonError::TooLong { .. } => "too_long",
            CanonError::ControlCharacter { .. } => "control_character",
            CanonError::Invalid { .. } => "invalid",
        }
    }
}

/// Why a policy file could not be loaded.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// The file could not be read.
    #[error("cannot read policy file {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The TOML is malformed or has unknown keys.
    #[error("invalid TOML policy: {0}")]
    Toml(String),
    /// The JSON is malformed or has unknown keys.
    #[error("invalid JSON policy: {0}")]
    Json(String),
    /// The `extends` preset name is unknown.
    #[error("unknown preset {0:?} (expected rfc3986, seo or aggressive)")]
    UnknownPreset(String),
}
