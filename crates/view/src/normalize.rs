//! One URL in its canonical form under a policy, with the rules that made it: what
//! `dustpan normalize --explain` prints and what an assistant asks the MCP server.

use crate::error::ViewError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One rule that changed a URL: the whole URL before and after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuleStep {
    /// The rule's id (`lowercase_host`, `strip_tracking_params`, ...).
    pub rule: String,
    /// The URL before the rule.
    pub before: String,
    /// The URL after the rule.
    pub after: String,
}

/// A URL normalized under a policy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NormalizedUrl {
    /// The URL as given.
    pub input: String,
    /// Its canonical form: two URLs with the same form are the same page as far as the
    /// policy's rules can tell.
    pub url: String,
    /// Every rule that changed it, in order; empty when it was already canonical.
    pub rules: Vec<RuleStep>,
}

/// `input` normalized under `policy`, with the trail of rules; a string that is not an
/// absolute http(s) URL is a [`ViewError::Url`] naming why.
pub fn normalize_url(input: &str, policy: &canon::Policy) -> Result<NormalizedUrl, ViewError> {
    let n = canon::normalize(input, policy)?;
    Ok(NormalizedUrl {
        input: input.to_owned(),
        url: n.url,
        rules: n
            .trail
            .into_iter()
            .map(|s| RuleStep {
                rule: s.rule.id().to_owned(),
                before: s.before,
                after: s.after,
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::ErrorCode;

    #[test]
    fn a_url_with_its_trail_and_a_bad_one_as_invalid_input() {
        let policy = canon::Preset::Seo.policy();
        let n = normalize_url("HTTP://Example.com:80/a?utm_source=x", &policy).unwrap();
        assert_eq!(n.url, canon::equivalence_key(&n.input, &policy).unwrap());
        assert!(!n.rules.is_empty());
        assert_eq!(n.rules.first().unwrap().before, n.input);
        assert_eq!(n.rules.last().unwrap().after, n.url);
        let e = normalize_url("not a url", &policy).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidInput);
        assert!(
            matches!(&e, ViewError::Url(c) if c.kind() == "not_absolute"),
            "{e:?}"
        );
    }
}
