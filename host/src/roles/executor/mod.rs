//! The executor worker (seed 004): runs the town's skills in the bubblewrap sandbox.
//!
//! It obeys the worker commands ([`crate::roles::worker`]); `run SKILL args` loads the town's
//! `skills/` and `skills/_policy.yaml` afresh (the owner edits them while the town runs),
//! validates the skill and its arguments, and runs the command in the sandbox of the skill's
//! working folder. The result (request id, exit code, output, error, timed out) goes back by DM;
//! for a brain's decision, triceratops turns it into an execution event ([`dispatch`]).
//!
//! # Layout
//! - [`skill`]: skill YAML, validation, argument rendering.
//! - [`dispatch`]: triceratops's side: a decided task that names a skill runs here.

pub mod dispatch;
pub mod intent;
pub mod skill;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::roles::worker::reply::{Reply, RunResult};
use crate::roles::worker::state::{Current, ParamSpec};
use soul_sandbox::{Declared, Limits, Sandbox, SandboxError};

pub use dispatch::Dispatch;

/// The executor's adjustable params.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "run_timeout_secs",
        min: 1.0,
        max: 30.0,
        default: 30.0,
        doc: "seconds a run may take before it is killed; never above 30",
    },
    ParamSpec {
        name: "output_kib",
        min: 1.0,
        max: 64.0,
        default: 16.0,
        doc: "KiB of stdout and of stderr kept from a run",
    },
];

/// Folder of a town's skills.
pub const SKILLS_DIR: &str = "skills";

/// The executor of one town.
#[derive(Debug)]
pub struct Executor {
    town: PathBuf,
}

impl Executor {
    /// The executor for the town in `town`; says at once what would stop it from running.
    pub fn new(town: &Path) -> Self {
        let town = std::path::absolute(town).unwrap_or_else(|_| town.to_path_buf());
        match Sandbox::load(&town) {
            Ok(s) if !s.available() => tracing::warn!("{}", SandboxError::Missing),
            Ok(_) => {}
            Err(e) => tracing::warn!("the executor's sandbox is not usable: {e}"),
        }
        if let Err(e) = skill::load_all(&town.join(SKILLS_DIR)) {
            tracing::warn!("the executor's skills are not usable: {e}");
        }
        Self { town }
    }

    /// Runs `name` with the given arguments; the reply always carries a result.
    pub async fn run(
        &self,
        name: &str,
        named: BTreeMap<String, String>,
        positional: Vec<String>,
        request: Option<String>,
        current: &Current,
    ) -> Reply {
        let failed = |error: String| not_run(name, request.clone(), error);
        let sandbox = match Sandbox::load(&self.town) {
            // This very binary carries the egress forwarder (`soul`, `soul-agent`).
            Ok(s) if s.available() => match std::env::current_exe() {
                Ok(exe) => s.with_forwarder(exe),
                Err(_) => s,
            },
            Ok(_) => return failed(SandboxError::Missing.to_string()),
            Err(e) => return failed(e.to_string()),
        };
        let skills = match skill::load_all(&self.town.join(SKILLS_DIR)) {
            Ok(s) => s,
            Err(e) => return failed(e),
        };
        let Some(skill) = skills.get(name) else {
            let known: Vec<&str> = skills.keys().map(String::as_str).collect();
            return failed(format!(
                "no skill {name:?}; the skills are {}",
                known.join(", ")
            ));
        };
        let argv = match skill.argv(&named, &positional) {
            Ok(a) => a,
            Err(e) => return failed(e),
        };
        let limits = Limits {
            run: Duration::from_secs_f64(
                current.param(PARAMS, "run_timeout_secs").clamp(1.0, 30.0),
            ),
            output_cap: (current.param(PARAMS, "output_kib").clamp(1.0, 64.0) * 1024.0) as usize,
            ..Limits::default()
        };
        // The sandbox compares folders with their real paths; the town's own may be a symlink.
        let town = std::fs::canonicalize(&self.town).unwrap_or_else(|_| self.town.clone());
        let workdir = town.join(&skill.workdir);
        if !workdir.exists() && sandbox.policies().visible(&workdir) {
            // A fresh town has no workspace yet; its policy decides what the run may do there.
            let _ = std::fs::create_dir_all(&workdir);
        }
        let declared: Vec<Declared> = skill
            .folders
            .iter()
            .map(|f| Declared {
                path: town.join(&f.path),
                access: f.access,
            })
            .collect();
        tracing::info!(skill = name, ?argv, "running a skill in the sandbox");
        let mut outcome = match sandbox
            .run_with(&argv, &workdir, &declared, limits, &skill.network)
            .await
        {
            Ok(o) => o,
            Err(e) => return failed(e.to_string()),
        };
        if !outcome.removed.is_empty() {
            let names: Vec<String> = outcome
                .removed
                .iter()
                .map(|p| p.strip_prefix(&town).unwrap_or(p).display().to_string())
                .collect();
            outcome.error.push_str(&format!(
                "\nsoul-sandbox: removed {} (extensions the folder policy denies)",
                names.join(", ")
            ));
        }
        let message = match (outcome.timed_out, outcome.exit_code) {
            (true, _) => format!(
                "{name} was killed at the {} s run time-out",
                limits.run.as_secs()
            ),
            (false, Some(0)) => format!("{name} finished"),
            (false, Some(c)) => format!("{name} failed with exit code {c}"),
            (false, None) => format!("{name} was killed by a signal"),
        };
        tracing::info!(skill = name, exit = ?outcome.exit_code, timed_out = outcome.timed_out, "{message}");
        let result = RunResult {
            request: request.clone(),
            skill: name.to_string(),
            exit_code: outcome.exit_code,
            output: outcome.output,
            error: outcome.error,
            timed_out: outcome.timed_out,
            truncated: outcome.truncated,
            elapsed_ms: outcome.elapsed.as_millis() as u64,
        };
        Reply {
            result: Some(result.clone()),
            ..Reply::new(request, "run", result.succeeded(), message)
        }
    }
}

/// The reply for a run that did not happen, with a result saying why (triceratops turns it
/// into a failed execution).
pub fn not_run(name: &str, request: Option<String>, error: String) -> Reply {
    let result = RunResult {
        request: request.clone(),
        skill: name.to_string(),
        exit_code: None,
        output: String::new(),
        error: error.clone(),
        timed_out: false,
        truncated: false,
        elapsed_ms: 0,
    };
    Reply {
        result: Some(result),
        ..Reply::new(
            request,
            "run",
            false,
            format!("{name} did not run: {error}"),
        )
    }
}
