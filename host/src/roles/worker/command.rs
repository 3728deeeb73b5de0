//! Worker commands, from plain text (a phone client) or JSON (a brain).
//!
//! Plain text: `pause`, `resume`, `restart`, `status`, `adjust_params key=value …`,
//! `run SKILL [key=value | value]…` (a leading `/` is allowed, the command word is
//! case-insensitive). JSON: `{"command": "run", "skill": "…", "args": {…}, "params": {…},
//! "decision": "<4362 id>", "request": "…"}`. Text that starts with no command word is not a
//! command (the buddy chats about it); text that starts with one but is malformed is an error.

use std::collections::BTreeMap;

use nostr::EventId;
use serde::Deserialize;

/// What a command asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Stop working until `resume`.
    Pause,
    /// Work again.
    Resume,
    /// Restart the agent (its host restarts its tasks).
    Restart,
    /// Set named params (range-checked by the worker).
    AdjustParams(BTreeMap<String, f64>),
    /// Run a skill.
    Run {
        /// The skill's name.
        skill: String,
        /// `key=value` arguments.
        named: BTreeMap<String, String>,
        /// Bare arguments, given to the skill's parameters in order.
        positional: Vec<String>,
    },
    /// Report state and params.
    Status,
}

impl Action {
    /// The command word.
    pub fn word(&self) -> &'static str {
        match self {
            Action::Pause => "pause",
            Action::Resume => "resume",
            Action::Restart => "restart",
            Action::AdjustParams(_) => "adjust_params",
            Action::Run { .. } => "run",
            Action::Status => "status",
        }
    }
}

/// A parsed command.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    /// What to do.
    pub action: Action,
    /// The approved decision (4362) a brain acts on.
    pub decision: Option<EventId>,
    /// The sender's request id, echoed in the result.
    pub request: Option<String>,
    /// Whether it came as JSON (the reply is JSON then).
    pub json: bool,
}

const WORDS: &[&str] = &[
    "pause",
    "resume",
    "restart",
    "adjust_params",
    "run",
    "status",
];

/// Parses `text`: `Ok(None)` when it is not a command at all.
pub fn parse(text: &str) -> Result<Option<Command>, String> {
    let t = text.trim();
    if t.starts_with('{') {
        return parse_json(t).map(Some);
    }
    let mut words = t.split_whitespace();
    let Some(first) = words.next() else {
        return Ok(None);
    };
    let word = first.trim_start_matches('/').to_ascii_lowercase();
    if !WORDS.contains(&word.as_str()) {
        return Ok(None);
    }
    let rest: Vec<&str> = words.collect();
    let action = match word.as_str() {
        "pause" | "resume" | "restart" | "status" if !rest.is_empty() => {
            return Err(format!(
                "`{word}` takes no arguments; got {:?}",
                rest.join(" ")
            ))
        }
        "pause" => Action::Pause,
        "resume" => Action::Resume,
        "restart" => Action::Restart,
        "status" => Action::Status,
        "adjust_params" => {
            if rest.is_empty() {
                return Err("`adjust_params` needs key=value pairs, e.g. `adjust_params run_timeout_secs=20`".into());
            }
            let mut params = BTreeMap::new();
            for kv in rest {
                let (k, v) = kv
                    .split_once('=')
                    .ok_or_else(|| format!("adjust_params: {kv:?} is not key=value"))?;
                let n: f64 = v
                    .parse()
                    .ok()
                    .filter(|n: &f64| n.is_finite())
                    .ok_or_else(|| format!("adjust_params: {k}={v:?} is not a number"))?;
                params.insert(k.to_string(), n);
            }
            Action::AdjustParams(params)
        }
        _ => {
            let (skill, args) = rest
                .split_first()
                .ok_or("`run` needs a skill name: `run SKILL [key=value…]`")?;
            let mut named = BTreeMap::new();
            let mut positional = Vec::new();
            for a in args {
                match a.split_once('=') {
                    Some((k, v)) if !k.is_empty() => {
                        named.insert(k.to_string(), v.to_string());
                    }
                    _ => positional.push(a.to_string()),
                }
            }
            Action::Run {
                skill: skill.to_string(),
                named,
                positional,
            }
        }
    };
    Ok(Some(Command {
        action,
        decision: None,
        request: None,
        json: false,
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonCommand {
    command: String,
    #[serde(default)]
    skill: Option<String>,
    #[serde(default)]
    args: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    params: BTreeMap<String, f64>,
    #[serde(default)]
    decision: Option<String>,
    #[serde(default)]
    request: Option<String>,
}

fn parse_json(text: &str) -> Result<Command, String> {
    let j: JsonCommand = serde_json::from_str(text).map_err(|e| format!("command JSON: {e}"))?;
    let decision = match &j.decision {
        Some(d) => Some(
            EventId::from_hex(d)
                .map_err(|_| format!("command JSON: \"decision\" {d:?} is not an event id"))?,
        ),
        None => None,
    };
    let action = match j.command.as_str() {
        "pause" => Action::Pause,
        "resume" => Action::Resume,
        "restart" => Action::Restart,
        "status" => Action::Status,
        "adjust_params" if j.params.is_empty() => {
            return Err("command JSON: adjust_params needs \"params\"".into())
        }
        "adjust_params" => Action::AdjustParams(j.params),
        "run" => {
            let skill = j
                .skill
                .filter(|s| !s.is_empty())
                .ok_or("command JSON: run needs \"skill\"")?;
            let named = j
                .args
                .into_iter()
                .map(|(k, v)| match v {
                    serde_json::Value::String(s) => (k, s),
                    other => (k, other.to_string()),
                })
                .collect();
            Action::Run {
                skill,
                named,
                positional: Vec::new(),
            }
        }
        other => {
            return Err(format!(
                "command JSON: \"command\" {other:?} is not one of {}",
                WORDS.join(", ")
            ))
        }
    };
    Ok(Command {
        action,
        decision,
        request: j.request,
        json: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(text: &str) -> Action {
        parse(text).unwrap().unwrap().action
    }

    #[test]
    fn plain_text_from_a_phone() {
        assert_eq!(action("pause"), Action::Pause);
        assert_eq!(action("  /Resume "), Action::Resume);
        assert_eq!(action("status"), Action::Status);
        let Action::AdjustParams(p) = action("adjust_params a=1 b=0.5") else {
            panic!()
        };
        assert_eq!(p.get("b"), Some(&0.5));
        let Action::Run {
            skill,
            named,
            positional,
        } = action("run checksum path=notes.txt extra")
        else {
            panic!()
        };
        assert_eq!(skill, "checksum");
        assert_eq!(named.get("path").map(String::as_str), Some("notes.txt"));
        assert_eq!(positional, vec!["extra".to_string()]);
        assert_eq!(parse("hello, how are you?").unwrap(), None);
        assert_eq!(parse("").unwrap(), None);
    }

    #[test]
    fn malformed_commands_say_what_is_wrong() {
        assert!(parse("pause now").unwrap_err().contains("no arguments"));
        assert!(parse("adjust_params x").unwrap_err().contains("key=value"));
        assert!(parse("adjust_params x=fast")
            .unwrap_err()
            .contains("not a number"));
        assert!(parse("adjust_params x=NaN").is_err());
        assert!(parse("run").unwrap_err().contains("skill"));
        assert!(parse("{\"command\":\"dance\"}")
            .unwrap_err()
            .contains("dance"));
        assert!(parse("{\"command\":\"run\"}")
            .unwrap_err()
            .contains("skill"));
        assert!(parse("{\"command\":\"pause\",\"decision\":\"xyz\"}")
            .unwrap_err()
            .contains("decision"));
        assert!(parse("{\"command\":\"pause\",\"sudo\":true}").is_err());
    }

    #[test]
    fn json_from_a_brain() {
        let id = EventId::all_zeros().to_hex();
        let c = parse(&format!(
            "{{\"command\":\"run\",\"skill\":\"du\",\"args\":{{\"depth\":2,\"path\":\"x\"}},\"decision\":\"{id}\",\"request\":\"r1\"}}"
        ))
        .unwrap()
        .unwrap();
        assert!(c.json);
        assert_eq!(c.decision, Some(EventId::all_zeros()));
        assert_eq!(c.request.as_deref(), Some("r1"));
        let Action::Run { named, .. } = c.action else {
            panic!()
        };
        assert_eq!(named.get("depth").map(String::as_str), Some("2"));
    }
}
