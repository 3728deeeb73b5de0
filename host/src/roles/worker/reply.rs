//! A worker's answer to a command: JSON for a JSON command (a brain reads it), text for a text
//! command (a person reads it). An acknowledgement of a long command carries the rumor tag
//! `["status", "accepted"]`; the final answer does not. A refusal's reply marks nothing
//! handled ([`Seen::refusal_tags`]); a text too long for one message goes as numbered parts.

use nostr::{Tag, TagKind};
use serde::{Deserialize, Serialize};
use soul_kinds::WorkerState;

use soul_link::dm::replay::Seen;
use soul_link::dm::{DmClient, Message};

/// Rumor tag marking an acknowledgement that is not the final answer.
pub const ACCEPTED: &str = "accepted";

/// What a sandboxed run did (seed 004's result: request id, exit code, output, error, timed out).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// The request id the command carried (the decision id for a brain's run).
    pub request: Option<String>,
    /// The skill run.
    pub skill: String,
    /// Exit code; `None` when killed.
    pub exit_code: Option<i32>,
    /// stdout, capped.
    pub output: String,
    /// stderr, capped; or why nothing ran.
    pub error: String,
    /// Killed at the run time-out.
    pub timed_out: bool,
    /// Output was cut at the cap.
    pub truncated: bool,
    /// How long it ran, in milliseconds.
    pub elapsed_ms: u64,
}

impl RunResult {
    /// Whether the skill ran and exited 0.
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out
    }
}

/// A worker's reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// The command's request id, echoed.
    pub request: Option<String>,
    /// The command word (`pause`, …), or `refused`/`error` when it was not carried out.
    pub command: String,
    /// Whether the command was carried out.
    pub ok: bool,
    /// One line for a person.
    pub message: String,
    /// The worker's state after the command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<WorkerState>,
    /// A run's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<RunResult>,
}

impl Reply {
    /// A reply without state or result.
    pub fn new(request: Option<String>, command: &str, ok: bool, message: String) -> Self {
        Self {
            request,
            command: command.to_string(),
            ok,
            message,
            state: None,
            result: None,
        }
    }

    /// The text to send: JSON, or lines for a person.
    pub fn render(&self, json: bool) -> String {
        if json {
            return serde_json::to_string(self).unwrap_or_else(|_| self.message.clone());
        }
        let mut out = self.message.clone();
        if let Some(s) = &self.state {
            let params: Vec<String> = s.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let run = match s.state {
                soul_kinds::WorkerRun::Running => "running",
                soul_kinds::WorkerRun::Paused => "paused",
            };
            out.push_str(&format!("\nstate: {run}\nparams: {}", params.join(" ")));
        }
        if let Some(r) = &self.result {
            let code = r
                .exit_code
                .map_or_else(|| "none (killed)".to_string(), |c| c.to_string());
            out.push_str(&format!(
                "\nexit code: {code}\ntimed out: {}\nelapsed: {} ms",
                r.timed_out, r.elapsed_ms
            ));
            if r.truncated {
                out.push_str("\n(output cut at the cap)");
            }
            if !r.output.is_empty() {
                out.push_str(&format!("\n--- output ---\n{}", r.output.trim_end()));
            }
            if !r.error.is_empty() {
                out.push_str(&format!("\n--- error ---\n{}", r.error.trim_end()));
            }
        }
        out
    }
}

/// The command word of a refusal's reply (its sender was not entitled to the command).
pub const REFUSED: &str = "refused";
/// The command word of the reply to a command that could not be read.
pub const UNREADABLE: &str = "error";

/// Sends `r` to `m`'s sender, marking `m` handled unless `r` refuses it (and, for `ack`, not
/// final). A reply too long for one message goes as numbered parts (JSON is cut instead, so
/// that it still parses: see [`fit`]).
pub async fn send_reply(dm: &DmClient, m: &Message, json: bool, r: &Reply, ack: bool) {
    let mut tags = if r.command == REFUSED || r.command == UNREADABLE {
        Seen::refusal_tags(m)
    } else {
        Seen::reply_tags(m)
    };
    if ack {
        tags.push(Tag::custom(TagKind::custom("status"), [ACCEPTED]));
    }
    let text = if json {
        fit(r).render(true)
    } else {
        r.render(false)
    };
    if let Err(e) = dm.send(m.sender, &text, tags).await {
        // A stranger's wrap is refused by the town relay (gift wraps only to members): the
        // refusal is in this log instead.
        tracing::warn!(to = %m.sender, command = %r.command, "reply not delivered: {e}");
    }
}

/// `r` cut to fit one message as JSON: a JSON reply split in parts would no longer parse, so
/// its run output and error are shortened instead, with a marker saying how much was cut.
pub fn fit(r: &Reply) -> Reply {
    let budget = soul_link::dm::split::PART_BYTES;
    let size = |r: &Reply| serde_json::to_string(r).map_or(usize::MAX, |s| s.len());
    if size(r) <= budget {
        return r.clone();
    }
    let mut out = r.clone();
    out.message = cut(&out.message, 2000);
    if let Some(res) = out.result.as_mut() {
        // What is left for output and error, half each (escapes can double a byte's cost).
        let room = budget.saturating_sub(
            size(&Reply {
                result: None,
                ..r.clone()
            }) + 512,
        ) / 4;
        res.output = cut(&res.output, room);
        res.error = cut(&res.error, room);
        res.truncated = true;
    }
    out
}

/// `text` to at most `max` bytes (at a character boundary), with a marker when cut.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n[… {} more bytes not sent: too long for one message]",
        &text[..end],
        text.len() - end
    )
}

#[cfg(test)]
mod fit_tests {
    use super::*;

    #[test]
    fn a_long_json_result_is_cut_to_one_message_and_says_so() {
        let mut r = Reply::new(Some("req".into()), "run", true, "done".into());
        r.result = Some(RunResult {
            request: Some("req".into()),
            skill: "list".into(),
            exit_code: Some(0),
            output: "\"x\"\n".repeat(30_000),
            error: String::new(),
            timed_out: false,
            truncated: false,
            elapsed_ms: 1,
        });
        let f = fit(&r);
        let text = serde_json::to_string(&f).unwrap();
        assert!(
            text.len() <= soul_link::dm::split::PART_BYTES,
            "{}",
            text.len()
        );
        let res = f.result.unwrap();
        assert!(res.truncated && res.output.contains("more bytes not sent"));
        let small = Reply::new(None, "status", true, "ok".into());
        assert_eq!(fit(&small).render(true), small.render(true));
    }
}
