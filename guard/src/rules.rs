//! The guardian's and the gate's rules, read from `rules/` (or the shipped copies).

use crate::GuardError;
use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

/// A risk band (`rules/dangerous_operations.yaml`, a skill's `risk:`), weakest first so that
/// the strongest of several is their `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Risk {
    /// Nothing to confirm.
    None,
    /// CONFIRM.
    Medium,
    /// CONFIRM twice.
    High,
    /// BLOCK.
    Critical,
}

impl Risk {
    /// Its name as written in YAML.
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::None => "none",
            Risk::Medium => "medium",
            Risk::High => "high",
            Risk::Critical => "critical",
        }
    }
}

/// One entry of the dangerous-operations registry.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dangerous {
    /// The tool.
    pub tool: String,
    /// How dangerous.
    pub risk: Risk,
    /// Why, said to the owner.
    pub why: String,
    /// Phrases of a request that asks for this operation ("田中さんの給与を教えて" asks for
    /// `view_salary_info`): how an approved task is mapped onto what its execution would do,
    /// so the registry and the gate judge that action and not a harmless-sounding plan.
    #[serde(default)]
    pub asks: Vec<String>,
}

/// What an owner rule does when it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OwnerAction {
    /// Refuse.
    Block,
    /// Ask the owner.
    Confirm,
}

/// One of the owner's rules (seed 003's "CEO teachings").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OwnerRule {
    /// Short id.
    pub id: String,
    /// What it says.
    pub title: String,
    /// Tools it covers.
    #[serde(default)]
    pub tools: Vec<String>,
    /// Words it covers (case-insensitive substrings of the proposal).
    #[serde(default)]
    pub words: Vec<String>,
    /// What happens.
    pub action: OwnerAction,
}

/// `constitution:` in guardian.yaml.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Constitution {
    /// Fewest reasoning characters.
    pub min_reasoning_chars: usize,
    /// Phrases that show a mind deciding permissions.
    pub permission_phrases: Vec<String>,
}

/// `confidence:` in guardian.yaml.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bands {
    /// Below: BLOCK.
    pub block_below: f64,
    /// Below: CONFIRM with a question.
    pub confirm_below: f64,
    /// Below: light CONFIRM.
    pub light_confirm_below: f64,
}

/// `parameters:` in guardian.yaml.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// An amount above this is confirmed.
    pub amount_confirm_over: f64,
    /// An amount above this is confirmed twice.
    pub amount_double_over: f64,
    /// This many recipients or more is confirmed.
    pub recipients_confirm_at: usize,
    /// This many or more is confirmed with the content shown.
    pub recipients_review_at: usize,
    /// A date further ahead than this is confirmed.
    pub far_future_days: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GuardianFile {
    constitution: Constitution,
    confidential: Vec<String>,
    ng_patterns: Vec<String>,
    owner_rules: Vec<OwnerRule>,
    confidence: Bands,
    parameters: Limits,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DangerousFile {
    operations: Vec<Dangerous>,
}

/// Everything the guardian checks against.
#[derive(Debug, Clone, PartialEq)]
pub struct GuardRules {
    /// Constitution checks.
    pub constitution: Constitution,
    /// Confidential patterns.
    pub confidential: Vec<String>,
    /// NG patterns.
    pub ng_patterns: Vec<String>,
    /// The dangerous-operations registry.
    pub dangerous: Vec<Dangerous>,
    /// The owner's rules.
    pub owner_rules: Vec<OwnerRule>,
    /// Confidence bands.
    pub bands: Bands,
    /// Parameter limits.
    pub limits: Limits,
}

/// The gate's levels (`rules/authorization.yaml`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthRules {
    /// Level per role (`owner` for the town's owner).
    pub levels: BTreeMap<String, u8>,
    /// Level each action needs.
    pub actions: BTreeMap<String, u8>,
}

const GUARDIAN: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../rules/guardian.yaml"
));
const DANGEROUS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../rules/dangerous_operations.yaml"
));
const AUTHORIZATION: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../rules/authorization.yaml"
));

fn read<T: for<'de> Deserialize<'de>>(
    dir: Option<&Path>,
    name: &str,
    builtin: &str,
) -> Result<T, GuardError> {
    let (text, file) = match dir.map(|d| d.join("rules").join(name)) {
        Some(path) if path.exists() => (
            std::fs::read_to_string(&path).map_err(|e| GuardError::Rules {
                file: path.display().to_string(),
                reason: e.to_string(),
            })?,
            path.display().to_string(),
        ),
        _ => (builtin.to_owned(), format!("the built-in rules/{name}")),
    };
    serde_yaml_ng::from_str(&text).map_err(|e| GuardError::Rules {
        file,
        reason: format!("{e} (see the comments at the top of the shipped file)"),
    })
}

impl GuardRules {
    /// The town's rules in `town/rules/`, each file falling back to the shipped one if absent.
    pub fn load(town: Option<&Path>) -> Result<Self, GuardError> {
        let g: GuardianFile = read(town, "guardian.yaml", GUARDIAN)?;
        let d: DangerousFile = read(town, "dangerous_operations.yaml", DANGEROUS)?;
        let b = g.confidence;
        if !(0.0 <= b.block_below
            && b.block_below <= b.confirm_below
            && b.confirm_below <= b.light_confirm_below
            && b.light_confirm_below <= 1.0)
        {
            return Err(GuardError::Rules {
                file: "guardian.yaml".into(),
                reason:
                    "confidence: need 0 <= block_below <= confirm_below <= light_confirm_below <= 1"
                        .into(),
            });
        }
        Ok(Self {
            constitution: g.constitution,
            confidential: g.confidential,
            ng_patterns: g.ng_patterns,
            dangerous: d.operations,
            owner_rules: g.owner_rules,
            bands: b,
            limits: g.parameters,
        })
    }
}

impl GuardRules {
    /// The strongest operation a request's `text` asks for, by the registry's `asks` phrases
    /// (case-insensitive).
    pub fn asked(&self, text: &str) -> Option<&Dangerous> {
        let text = text.to_lowercase();
        self.dangerous
            .iter()
            .filter(|d| {
                d.asks
                    .iter()
                    .any(|a| !a.trim().is_empty() && text.contains(&a.to_lowercase()))
            })
            .max_by_key(|d| d.risk)
    }
}

impl AuthRules {
    /// `town/rules/authorization.yaml`, or the shipped one.
    pub fn load(town: Option<&Path>) -> Result<Self, GuardError> {
        read(town, "authorization.yaml", AUTHORIZATION)
    }
}
