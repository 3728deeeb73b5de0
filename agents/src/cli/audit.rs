//! `soul audit [--agent NAME] [--since DUR] [--json]`: the audit rows in `karma.sqlite`, every
//! verdict with the outcome of what ran (DESIGN §12), for the owner to read without SQL.
//!
//! `--json` prints one stable array of objects (the fields of [`AuditLine`]); the human form
//! is a table, one line per verdict, newest last.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use serde::Serialize;
use soul_karma::{AuditEntry, Karma};

/// One row of `soul audit --json`. Field names are a contract for scripts.
#[derive(Debug, Serialize)]
pub struct AuditLine {
    /// The row's id (the verdict event's id when it was published).
    pub record_id: String,
    /// Seconds since the epoch.
    pub time: i64,
    /// The deciding agent.
    pub agent: String,
    /// Who would act (hex).
    pub actor: String,
    /// The event the decision is about (hex).
    pub subject: Option<String>,
    /// What came in.
    pub input: String,
    /// The proposed tool calls.
    pub tools: serde_json::Value,
    /// allow | confirm | block | modify.
    pub action: String,
    /// Which check decided.
    pub check: String,
    /// Why (with the values behind it: this is the owner's own file).
    pub reason: String,
    /// allowed | denied | not_reached.
    pub auth: String,
    /// Why.
    pub auth_reason: String,
    /// The mind that proposed (`built-in` or a model).
    pub model: String,
    /// The mind's confidence.
    pub confidence: f64,
    /// success | failure once what it allowed ran; null otherwise.
    pub outcome: Option<String>,
    /// The run's exit code.
    pub exit_code: Option<i64>,
    /// How long the run took, in milliseconds.
    pub run_ms: Option<i64>,
    /// Bytes of output the run produced.
    pub output_bytes: Option<i64>,
    /// The run's error, when it failed.
    pub error: Option<String>,
    /// What was said to people.
    pub response: String,
    /// The public verdict event (hex).
    pub verdict_event: Option<String>,
}

impl From<AuditEntry> for AuditLine {
    fn from(e: AuditEntry) -> Self {
        let r = e.row;
        Self {
            record_id: r.record_id,
            time: r.timestamp,
            agent: r.agent,
            actor: r.actor,
            subject: r.subject,
            input: r.input_message,
            tools: serde_json::from_str(&r.selected_tools).unwrap_or(serde_json::Value::Null),
            action: r.guardian_action,
            check: r.guardian_check,
            reason: r.guardian_reason,
            auth: r.auth_result,
            auth_reason: r.auth_reason,
            model: r.llm_model,
            confidence: r.llm_confidence,
            outcome: r
                .execution_success
                .map(|ok| if ok { "success" } else { "failure" }.to_owned()),
            exit_code: e.exit_code,
            run_ms: e.run_duration_ms,
            output_bytes: e.output_bytes,
            error: r.execution_error,
            response: r.final_response,
            verdict_event: r.verdict_event,
        }
    }
}

/// `10s`, `10m`, `2h`, `1d` as seconds.
pub fn parse_since(s: &str) -> Result<i64, String> {
    let s = s.trim();
    let (n, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: i64 = n
        .parse()
        .map_err(|_| format!("--since {s:?}: write a number and a unit, e.g. 10m, 2h, 1d"))?;
    let per = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => {
            return Err(format!(
                "--since {s:?}: the unit must be s, m, h or d (e.g. 10m, 2h, 1d)"
            ))
        }
    };
    n.checked_mul(per)
        .ok_or_else(|| format!("--since {s:?} is too far back"))
}

pub(super) fn run(
    dir: &Path,
    agent: Option<String>,
    since: Option<String>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let file = dir.join(soul_karma::FILE_NAME);
    if !file.exists() {
        anyhow::bail!(
            "{} does not exist: no agent of this town has recorded anything yet (run `soul up`, or give --town)",
            file.display()
        );
    }
    let from = match since {
        Some(s) => Some(soul_karma::now_secs() - parse_since(&s).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let karma = Karma::open(&file).with_context(|| format!("opening {}", file.display()))?;
    let rows: Vec<AuditLine> = karma
        .audit_rows(agent.as_deref(), from)?
        .into_iter()
        .map(AuditLine::from)
        .collect();
    if json {
        println!("{}", serde_json::to_string(&rows)?);
    } else {
        print_table(&rows);
    }
    Ok(ExitCode::SUCCESS)
}

fn clip(s: &str, n: usize) -> String {
    let one_line = s.replace(['\n', '\r', '\t'], " ");
    if one_line.chars().count() <= n {
        one_line
    } else {
        format!("{}…", one_line.chars().take(n - 1).collect::<String>())
    }
}

fn print_table(rows: &[AuditLine]) {
    if rows.is_empty() {
        println!("no audit rows");
        return;
    }
    println!(
        "{:<19}  {:<12}  {:<7}  {:<19}  {:<11}  {:<8}  {:>4}  {:>7}  {:>7}  INPUT — REASON",
        "TIME (UTC)", "AGENT", "ACTION", "CHECK", "AUTH", "OUTCOME", "EXIT", "RUN ms", "BYTES"
    );
    for r in rows {
        let time = chrono::DateTime::from_timestamp(r.time, 0)
            .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
            .unwrap_or_else(|| r.time.to_string());
        let dash = || "-".to_owned();
        println!(
            "{:<19}  {:<12}  {:<7}  {:<19}  {:<11}  {:<8}  {:>4}  {:>7}  {:>7}  {} — {}",
            time,
            clip(&r.agent, 12),
            r.action,
            clip(&r.check, 19),
            r.auth,
            r.outcome.clone().unwrap_or_else(dash),
            r.exit_code.map_or_else(dash, |c| c.to_string()),
            r.run_ms.map_or_else(dash, |c| c.to_string()),
            r.output_bytes.map_or_else(dash, |c| c.to_string()),
            clip(&r.input, 40),
            clip(&r.reason, 80),
        );
        if let Some(e) = &r.error {
            println!("{:>21}error: {}", "", clip(e, 100));
        }
    }
    println!("{} row(s)", rows.len());
}

#[cfg(test)]
mod tests {
    use super::parse_since;

    #[test]
    fn durations() {
        assert_eq!(parse_since("10m"), Ok(600));
        assert_eq!(parse_since("2h"), Ok(7200));
        assert_eq!(parse_since("1d"), Ok(86_400));
        assert_eq!(parse_since("45s"), Ok(45));
        for bad in ["", "m", "10", "10w", "-1h", "1.5h"] {
            assert!(parse_since(bad).is_err(), "{bad}");
        }
    }
}
