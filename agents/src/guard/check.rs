//! The guardian's decision tree (seed 003 §5.3.3b): ordered checks, the first that does not
//! pass decides. Pure: the proposal, the rules and the time in, a verdict out.

use serde_json::{Map, Value};
use soul_kinds::GuardAction;

use super::rules::{GuardRules, OwnerAction, Risk};
use crate::mind::schema::{Proposal, Shape, ToolCall};

/// Which check decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// 1: reasoning missing, or the mind deciding permissions.
    Constitution,
    /// 2: NG or confidential patterns.
    Security,
    /// 3: the dangerous-operations registry.
    Dangerous,
    /// 4: the owner's rules.
    OwnerRules,
    /// 5: the mind's confidence.
    Confidence,
    /// 6: amounts, recipients, deletions, dates.
    Parameters,
    /// 7: fixable inconsistencies.
    Consistency,
    /// The authorization gate denied the actor.
    Authorization,
    /// The owner answered yes to a CONFIRM.
    OwnerConfirmed,
    /// The owner answered no, unclearly, or not in time.
    OwnerDeclined,
    /// Everything passed.
    Pass,
}

impl Check {
    /// Its name in verdict events and audit rows.
    pub fn as_str(self) -> &'static str {
        match self {
            Check::Constitution => "constitution",
            Check::Security => "security",
            Check::Dangerous => "dangerous_operation",
            Check::OwnerRules => "owner_rules",
            Check::Confidence => "confidence",
            Check::Parameters => "parameters",
            Check::Consistency => "consistency",
            Check::Authorization => "authorization",
            Check::OwnerConfirmed => "owner_confirmed",
            Check::OwnerDeclined => "owner_declined",
            Check::Pass => "pass",
        }
    }
}

/// The guardian's verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// ALLOW, CONFIRM, BLOCK or MODIFY.
    pub action: GuardAction,
    /// Which check decided.
    pub check: Check,
    /// Why, for people.
    pub reason: String,
    /// For CONFIRM: the question for the owner.
    pub question: Option<String>,
    /// For CONFIRM: the owner must confirm twice (high risk, everyone, big sums).
    pub double: bool,
    /// For MODIFY: the tool calls as corrected.
    pub modified: Option<Vec<ToolCall>>,
}

impl Verdict {
    pub(crate) fn new(action: GuardAction, check: Check, reason: impl Into<String>) -> Self {
        Self {
            action,
            check,
            reason: reason.into(),
            question: None,
            double: false,
            modified: None,
        }
    }

    /// What settles a CONFIRM: the owner's clear yes allows, anything else blocks.
    pub fn owner_answered(yes: bool) -> Self {
        if yes {
            Self::new(
                GuardAction::Allow,
                Check::OwnerConfirmed,
                "the owner confirmed",
            )
        } else {
            Self::new(
                GuardAction::Block,
                Check::OwnerDeclined,
                "the owner did not confirm (no, unclear, or no answer in time)",
            )
        }
    }

    fn confirm(check: Check, reason: impl Into<String>, question: String, double: bool) -> Self {
        Self {
            question: Some(question),
            double,
            ..Self::new(GuardAction::Confirm, check, reason)
        }
    }
}

fn contains_any<'a>(haystack: &str, needles: &'a [String]) -> Option<&'a String> {
    let hay = haystack.to_lowercase();
    needles
        .iter()
        .find(|n| !n.trim().is_empty() && hay.contains(&n.to_lowercase()))
}

/// Judges `p` under `rules` at `now` (seconds since the epoch).
pub fn judge(p: &Proposal, rules: &GuardRules, now: i64) -> Verdict {
    // 1. Constitution.
    if p.reasoning.trim().chars().count() < rules.constitution.min_reasoning_chars {
        return Verdict::new(
            GuardAction::Block,
            Check::Constitution,
            format!(
                "the mind gave no reasoning (at least {} characters are required)",
                rules.constitution.min_reasoning_chars
            ),
        );
    }
    let all = format!("{}\n{}", p.reasoning, p.texts());
    if let Some(phrase) = contains_any(&all, &rules.constitution.permission_phrases) {
        return Verdict::new(
            GuardAction::Block,
            Check::Constitution,
            format!("the mind tried to decide a permission (\"{phrase}\"); only the authorization gate does"),
        );
    }
    if !p.confidence.is_finite() || !(0.0..=1.0).contains(&p.confidence) {
        return Verdict::new(
            GuardAction::Block,
            Check::Constitution,
            "confidence outside 0–1",
        );
    }
    // 2. Security: NG and confidential patterns in anything that would go out.
    let out = p.texts();
    if let Some(w) = contains_any(&out, &rules.ng_patterns) {
        return Verdict::new(
            GuardAction::Block,
            Check::Security,
            format!("NG pattern \"{w}\""),
        );
    }
    if let Some(w) = contains_any(&all, &rules.confidential) {
        return Verdict::new(
            GuardAction::Block,
            Check::Security,
            format!("confidential matter (\"{w}\") must not go out"),
        );
    }
    // 3. Dangerous operations.
    for call in p.tools() {
        if let Some(d) = rules.dangerous.iter().find(|d| d.tool == call.tool) {
            let reason =
                format!("{} is a {:?} risk operation: {}", d.tool, d.risk, d.why).to_lowercase();
            return match d.risk {
                Risk::Critical => Verdict::new(GuardAction::Block, Check::Dangerous, reason),
                Risk::High => Verdict::confirm(
                    Check::Dangerous,
                    reason,
                    format!(
                        "{} ({}). It cannot be undone. Are you sure?",
                        call_line(call),
                        d.why
                    ),
                    true,
                ),
                Risk::Medium => Verdict::confirm(
                    Check::Dangerous,
                    reason,
                    format!("{} ({}). Go ahead?", call_line(call), d.why),
                    false,
                ),
            };
        }
    }
    // 4. The owner's rules.
    for rule in &rules.owner_rules {
        let by_tool = p.tools().iter().any(|c| rule.tools.contains(&c.tool));
        let by_word = contains_any(&out, &rule.words).is_some();
        if by_tool || by_word {
            let reason = format!("owner rule {} ({})", rule.id, rule.title);
            return match rule.action {
                OwnerAction::Block => Verdict::new(GuardAction::Block, Check::OwnerRules, reason),
                OwnerAction::Confirm => Verdict::confirm(
                    Check::OwnerRules,
                    reason.clone(),
                    format!(
                        "Your rule says: {}. {} — go ahead?",
                        rule.title,
                        p.summary()
                    ),
                    false,
                ),
            };
        }
    }
    // 5. Confidence (only for what acts or speaks; a clarifying question is itself the cure).
    if !matches!(p.shape, Shape::Clarify { .. }) {
        let b = rules.bands;
        let c = p.confidence;
        if c < b.block_below {
            return Verdict::new(
                GuardAction::Block,
                Check::Confidence,
                format!(
                    "confidence {c:.2} is below {:.2}: the mind does not know",
                    b.block_below
                ),
            );
        }
        if c < b.confirm_below {
            let q = p.confirmation_question.clone().unwrap_or_else(|| {
                format!(
                    "I am not sure what you want: {}. Is that right?",
                    p.summary()
                )
            });
            return Verdict::confirm(
                Check::Confidence,
                format!("confidence {c:.2} is low"),
                q,
                false,
            );
        }
        if c < b.light_confirm_below {
            return Verdict::confirm(
                Check::Confidence,
                format!("confidence {c:.2} is below {:.2}", b.light_confirm_below),
                format!("Just checking: {}?", p.summary()),
                false,
            );
        }
    }
    // 6. Parameters, 7. consistency.
    for call in p.tools() {
        if let Some(v) = parameters(call, rules, now) {
            return v;
        }
    }
    let fixed: Vec<ToolCall> = p.tools().iter().map(consistent).collect();
    if fixed.as_slice() != p.tools() {
        return Verdict {
            modified: Some(fixed),
            ..Verdict::new(
                GuardAction::Modify,
                Check::Consistency,
                "parameters normalised (duplicate recipients dropped, priority spelt as the schema does)",
            )
        };
    }
    Verdict::new(GuardAction::Allow, Check::Pass, "every check passed")
}

fn call_line(call: &ToolCall) -> String {
    format!("{} {}", call.tool, Value::Object(call.parameters.clone()))
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.replace([',', '_', ' ', '¥', '$', '円'], "").parse().ok(),
        _ => None,
    }
}

const EVERYONE: &[&str] = &[
    "all",
    "everyone",
    "everybody",
    "@all",
    "全員",
    "みんな",
    "全社員",
];

fn parameters(call: &ToolCall, rules: &GuardRules, now: i64) -> Option<Verdict> {
    let l = rules.limits;
    let params = &call.parameters;
    if let Some(amount) = params.get("amount").and_then(number) {
        if amount > l.amount_double_over {
            return Some(Verdict::confirm(
                Check::Parameters,
                format!("amount {amount} is over {}", l.amount_double_over),
                format!("The amount is {amount}. This is a very large sum: confirm twice."),
                true,
            ));
        }
        if amount > l.amount_confirm_over {
            return Some(Verdict::confirm(
                Check::Parameters,
                format!("amount {amount} is over {}", l.amount_confirm_over),
                format!("The amount is {amount}. Go ahead?"),
                false,
            ));
        }
    }
    if let Some(r) = params.get("recipients") {
        let everyone = match r {
            Value::String(s) => EVERYONE.contains(&s.trim().to_lowercase().as_str()),
            Value::Array(a) => a.iter().any(|x| {
                x.as_str()
                    .is_some_and(|s| EVERYONE.contains(&s.trim().to_lowercase().as_str()))
            }),
            _ => false,
        };
        if everyone {
            return Some(Verdict::confirm(
                Check::Parameters,
                "sent to everyone",
                format!("{} goes to everyone. Confirm twice.", call.tool),
                true,
            ));
        }
        let n = r.as_array().map_or(1, Vec::len);
        if n >= l.recipients_review_at {
            return Some(Verdict::confirm(
                Check::Parameters,
                format!("{n} recipients"),
                format!(
                    "{} goes to {n} people; here is what they get: {}. Go ahead?",
                    call.tool,
                    call_line(call)
                ),
                false,
            ));
        }
        if n >= l.recipients_confirm_at {
            return Some(Verdict::confirm(
                Check::Parameters,
                format!("{n} recipients"),
                format!("{} goes to {n} people. Go ahead?", call.tool),
                false,
            ));
        }
    }
    let deletes = call.tool.starts_with("delete") || call.tool.starts_with("remove");
    if deletes {
        let n = ["ids", "targets", "paths"]
            .iter()
            .find_map(|k| params.get(*k).and_then(Value::as_array).map(Vec::len))
            .unwrap_or(1);
        let q = if n > 1 {
            format!("{} deletes {n} items. Go ahead?", call.tool)
        } else {
            format!("{} deletes {}. Go ahead?", call.tool, call_line(call))
        };
        return Some(Verdict::confirm(
            Check::Parameters,
            format!("deletes {n}"),
            q,
            n > 1,
        ));
    }
    for key in ["date", "due", "when", "starts", "deadline"] {
        let Some(s) = params.get(key).and_then(Value::as_str) else {
            continue;
        };
        let Some(at) = parse_date(s) else {
            return Some(Verdict::confirm(
                Check::Consistency,
                format!("{key} {s:?} is not a date"),
                format!("What date do you mean by {s:?}?"),
                false,
            ));
        };
        if at < now - 86_400 {
            return Some(Verdict::confirm(
                Check::Parameters,
                format!("{key} {s} is in the past"),
                format!("{s} is in the past. Is that right?"),
                false,
            ));
        }
        if at > now + l.far_future_days * 86_400 {
            return Some(Verdict::confirm(
                Check::Parameters,
                format!("{key} {s} is far ahead"),
                format!("{s} is quite far ahead. Is that right?"),
                false,
            ));
        }
    }
    None
}

/// `YYYY-MM-DD` or RFC 3339, as seconds since the epoch.
fn parse_date(s: &str) -> Option<i64> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s.trim()) {
        return Some(t.timestamp());
    }
    chrono::NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc().timestamp())
}

/// The call with fixable slips corrected: duplicate recipients, priority capitalisation.
fn consistent(call: &ToolCall) -> ToolCall {
    let mut params: Map<String, Value> = call.parameters.clone();
    if let Some(Value::Array(r)) = params.get_mut("recipients") {
        let mut seen = Vec::new();
        r.retain(|x| {
            let fresh = !seen.contains(x);
            seen.push(x.clone());
            fresh
        });
    }
    if let Some(Value::String(p)) = params.get_mut("priority") {
        let lower = p.trim().to_lowercase();
        if ["low", "medium", "high"].contains(&lower.as_str()) {
            *p = lower;
        }
    }
    ToolCall {
        tool: call.tool.clone(),
        parameters: params,
    }
}
