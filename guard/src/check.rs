//! The guardian's decision tree (seed 003 §5.3.3b): ordered checks, the first that does not
//! pass decides. Pure: the proposal, the rules and the time in, a verdict out.

use serde_json::{Map, Value};
use soul_kinds::GuardAction;

use super::effects::Facts;
use super::rules::{GuardRules, OwnerAction, Risk};
pub use super::verdict::{Check, Verdict};
use soul_proposal::{Proposal, Shape, ToolCall};

fn contains_any<'a>(haystack: &str, needles: &'a [String]) -> Option<&'a String> {
    let hay = haystack.to_lowercase();
    needles
        .iter()
        .find(|n| !n.trim().is_empty() && hay.contains(&n.to_lowercase()))
}

/// Judges `p` under `rules` at `now` (seconds since the epoch), knowing nothing beyond it.
pub fn judge(p: &Proposal, rules: &GuardRules, now: i64) -> Verdict {
    judge_with(p, &Facts::default(), rules, now)
}

/// The values a call would send out: its parameters' values and the text it would say, but
/// not the tool's name, the mind's reasoning or the task's title. A confidential word counts
/// where it would be disclosed, not where the owner's task merely mentions it (an approved
/// "password reminder" task may run).
fn outgoing(p: &Proposal) -> String {
    fn values(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| values(x, out)),
            Value::Object(o) => o.iter().for_each(|(k, x)| {
                out.push(k.clone());
                values(x, out)
            }),
            Value::Number(n) => out.push(n.to_string()),
            _ => {}
        }
    }
    let mut out = Vec::new();
    match &p.shape {
        Shape::Tool(calls) => calls.iter().for_each(|c| {
            values(&Value::Object(c.parameters.clone()), &mut out);
        }),
        Shape::Text(t) => out.push(t.clone()),
        Shape::Clarify { question, options } => {
            out.push(question.clone());
            out.extend(options.iter().cloned());
        }
    }
    out.join("\n")
}

/// Judges `p`, also weighing what the caller knows the call would do (`facts`).
pub fn judge_with(p: &Proposal, facts: &Facts, rules: &GuardRules, now: i64) -> Verdict {
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
    // A mind deciding a permission shows in its own reasoning; the same words in a post
    // (「駅からアクセスできる」) decide nothing. What a call would grant is the registry's
    // business (change_permission is critical).
    if let Some(phrase) = contains_any(&p.reasoning, &rules.constitution.permission_phrases) {
        return Verdict::new(
            GuardAction::Block,
            Check::Constitution,
            "the mind tried to decide a permission; only the authorization gate does",
        )
        .with_detail(format!("its reasoning says \"{phrase}\""));
    }
    if !p.confidence.is_finite() || !(0.0..=1.0).contains(&p.confidence) {
        return Verdict::new(
            GuardAction::Block,
            Check::Constitution,
            "confidence outside 0–1",
        );
    }
    // 2. Security: NG and confidential patterns in what would go out.
    let out = p.texts();
    let sent = outgoing(p);
    if let Some(w) = contains_any(&sent, &rules.ng_patterns) {
        return Verdict::new(GuardAction::Block, Check::Security, "an NG pattern matched")
            .with_detail(format!("NG pattern \"{w}\""));
    }
    if let Some(w) = contains_any(&sent, &rules.confidential) {
        return Verdict::new(
            GuardAction::Block,
            Check::Security,
            "confidential matter must not go out",
        )
        .with_detail(format!("confidential pattern \"{w}\""));
    }
    // 3. Dangerous operations: the registry by tool and by what the skill performs, the
    // skill's declared risk, and what the call's values would do; the strongest band decides.
    if let Some(v) = dangerous(p, facts, rules) {
        return v;
    }
    // 4. The owner's rules.
    for rule in &rules.owner_rules {
        let by_tool = p.tools().iter().any(|c| rule.tools.contains(&c.tool))
            || facts
                .performs
                .as_ref()
                .is_some_and(|a| rule.tools.contains(a));
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
    if let Shape::Clarify { question, options } = &p.shape {
        let mut q = question.clone();
        if !options.is_empty() {
            q = format!("{q} ({})", options.join(" / "));
        }
        return Verdict::confirm(
            Check::Clarification,
            "the mind asks the owner before acting",
            q,
            false,
        );
    }
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
    // The mind's own wish to confirm is honoured at any confidence.
    if let Some(q) = p
        .confirmation_question
        .as_ref()
        .filter(|q| !q.trim().is_empty())
    {
        return Verdict::confirm(
            Check::Confidence,
            "the mind asks for the owner's confirmation",
            q.clone(),
            false,
        );
    }
    if c < b.confirm_below {
        return Verdict::confirm(
            Check::Confidence,
            format!("confidence {c:.2} is low"),
            format!(
                "I am not sure what you want: {}. Is that right?",
                p.summary()
            ),
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

/// The dangerous band of `p` with `facts`, as a verdict, if it has one.
fn dangerous(p: &Proposal, facts: &Facts, rules: &GuardRules) -> Option<Verdict> {
    // (band, public reason, private detail, why for the owner)
    let mut found: Vec<(Risk, String, Option<String>, String)> = Vec::new();
    let named = p
        .tools()
        .iter()
        .map(|c| c.tool.as_str())
        .chain(facts.performs.as_deref());
    for tool in named {
        if let Some(d) = rules.dangerous.iter().find(|d| d.tool == tool) {
            let reason = format!(
                "{} is a {} risk operation: {}",
                d.tool,
                d.risk.as_str(),
                d.why
            );
            found.push((d.risk, reason, None, d.why.clone()));
        }
    }
    if let Some(risk) = facts.risk.filter(|r| *r != Risk::None) {
        let tool = p.tools().first().map_or("the call", |c| c.tool.as_str());
        found.push((
            risk,
            format!("{tool} declares risk {}", risk.as_str()),
            None,
            format!("the skill declares risk {}", risk.as_str()),
        ));
    }
    for e in &facts.effects {
        found.push((
            e.risk(),
            e.public(),
            Some(e.private()),
            format!("{}: {}", e.public(), e.private()),
        ));
    }
    let top = found.iter().map(|f| f.0).max()?;
    if top == Risk::None {
        return None;
    }
    let at_top: Vec<&(Risk, String, Option<String>, String)> =
        found.iter().filter(|f| f.0 == top).collect();
    let reason = at_top
        .iter()
        .map(|f| f.1.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    let details: Vec<&str> = found.iter().filter_map(|f| f.2.as_deref()).collect();
    let whys = at_top
        .iter()
        .map(|f| f.3.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    let line = p
        .tools()
        .iter()
        .map(call_line)
        .collect::<Vec<_>>()
        .join(", ");
    let v = match top {
        Risk::Critical => Verdict::new(GuardAction::Block, Check::Dangerous, reason),
        Risk::High => Verdict::confirm(
            Check::Dangerous,
            reason,
            format!("{line} ({whys}). It cannot be undone. Are you sure?"),
            true,
        ),
        Risk::Medium => Verdict::confirm(
            Check::Dangerous,
            reason,
            format!("{line} ({whys}). Go ahead?"),
            false,
        ),
        Risk::None => return None,
    };
    Some(if details.is_empty() {
        v
    } else {
        v.with_detail(details.join("; "))
    })
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
            return Some(
                Verdict::confirm(
                    Check::Parameters,
                    format!("the amount is over {}", l.amount_double_over),
                    format!("The amount is {amount}. This is a very large sum: confirm twice."),
                    true,
                )
                .with_detail(format!("amount {amount}")),
            );
        }
        if amount > l.amount_confirm_over {
            return Some(
                Verdict::confirm(
                    Check::Parameters,
                    format!("the amount is over {}", l.amount_confirm_over),
                    format!("The amount is {amount}. Go ahead?"),
                    false,
                )
                .with_detail(format!("amount {amount}")),
            );
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
            return Some(
                Verdict::confirm(
                    Check::Consistency,
                    format!("{key} is not a date"),
                    format!("What date do you mean by {s:?}?"),
                    false,
                )
                .with_detail(format!("{key} = {s:?}")),
            );
        };
        if at < now - 86_400 {
            return Some(
                Verdict::confirm(
                    Check::Parameters,
                    format!("{key} is in the past"),
                    format!("{s} is in the past. Is that right?"),
                    false,
                )
                .with_detail(format!("{key} = {s}")),
            );
        }
        if at > now + l.far_future_days * 86_400 {
            return Some(
                Verdict::confirm(
                    Check::Parameters,
                    format!("{key} is far ahead"),
                    format!("{s} is quite far ahead. Is that right?"),
                    false,
                )
                .with_detail(format!("{key} = {s}")),
            );
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
