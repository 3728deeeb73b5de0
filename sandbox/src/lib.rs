//! The executor's sandbox (seed 004): allowlisted commands in bubblewrap, built from folder
//! policies, with a start time-out, a run time-out and capped output.
//!
//! # Layout
//! - [`policy`]: folder policies from `skills/_policy.yaml`; the most specific path wins.
//! - [`view`]: what one run sees: its working folder and its skill's declared folders.
//! - [`bwrap`]: the bubblewrap command line for one run, and its launcher.
//! - [`cgroup`]: a pids cgroup per run where the host allows (RLIMIT_NPROC does not bind root).
//! - [`egress`]: network by allowlist: the run's own proxy, bridged into its empty namespace.
//!
//! **Architecture invariant:** nothing runs outside bubblewrap. When `bwrap` is missing the
//! sandbox refuses every run and says why ([`SandboxError::Missing`]); there is no fallback.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod bwrap;
pub mod cgroup;
pub mod egress;
pub mod policy;
pub mod view;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio::sync::oneshot;

pub use egress::{Allowlist, Egress, EgressLimits};
pub use policy::{Access, FolderPolicy, Network, Policies};
pub use view::{Declared, View};

/// The file in a town that holds the folder policies.
pub const POLICY_FILE: &str = "skills/_policy.yaml";

/// Time limits and the output cap of one run.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// From spawning bubblewrap until the sandbox is set up and the command starts.
    pub start: Duration,
    /// From the command's start until it is killed.
    pub run: Duration,
    /// Bytes kept of stdout and of stderr each; the rest is read and dropped.
    pub output_cap: usize,
    /// Address space of each process of the run, in bytes (RLIMIT_AS).
    pub memory: u64,
    /// Processes the run may have at once (RLIMIT_NPROC; see ARCHITECTURE.md for root).
    pub processes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            start: Duration::from_secs(10),
            run: Duration::from_secs(30),
            output_cap: 16 * 1024,
            memory: 1024 * 1024 * 1024,
            processes: 64,
        }
    }
}

/// What a run did.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The command's exit code; `None` when it was killed.
    pub exit_code: Option<i32>,
    /// Its stdout, up to the cap, lossily decoded.
    pub output: String,
    /// Its stderr, up to the cap.
    pub error: String,
    /// Killed at the run time-out.
    pub timed_out: bool,
    /// Output or error was cut at the cap.
    pub truncated: bool,
    /// How long the command ran.
    pub elapsed: Duration,
    /// Files with a denied extension the run left behind, removed after it.
    pub removed: Vec<PathBuf>,
}

/// Why the sandbox did not run a command.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// bubblewrap is not installed.
    #[error("bubblewrap (`bwrap`) is not installed, so the executor runs nothing: install it (Debian/Ubuntu: `apt-get install bubblewrap`) and restart the executor")]
    Missing,
    /// The policy file is wrong.
    #[error("{}: {reason}", path.display())]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong and where.
        reason: String,
    },
    /// The request breaks a policy.
    #[error("refused by the sandbox policy: {0}")]
    Refused(String),
    /// A networked skill cannot have its egress path (fail closed): what is missing.
    #[error("this skill needs the network, but soul's egress path is not usable: {0}; networked skills do not run without it")]
    Egress(String),
    /// bubblewrap could not be started.
    #[error("cannot start bubblewrap: {0}")]
    Spawn(#[source] std::io::Error),
    /// The sandbox did not come up in time.
    #[error("the sandbox did not start within {0:?}: {1}")]
    StartTimeout(Duration, String),
}

/// The town's sandbox: policies, the allowlist, and where bubblewrap is.
#[derive(Debug, Clone)]
pub struct Sandbox {
    policies: Policies,
    bwrap: Option<PathBuf>,
    /// The binary whose hidden mode bridges a networked run to its proxy.
    forwarder: Option<PathBuf>,
}

impl Sandbox {
    /// Reads `town/skills/_policy.yaml`.
    pub fn load(town: &Path) -> Result<Self, SandboxError> {
        // The real path: folders are compared with what bubblewrap will mount.
        let town = std::fs::canonicalize(town).map_err(|e| SandboxError::Config {
            path: town.to_path_buf(),
            reason: format!("cannot open the town folder: {e}"),
        })?;
        let policies = Policies::load(&town.join(POLICY_FILE), &town)?;
        Ok(Self {
            policies,
            bwrap: bwrap::find(),
            forwarder: None,
        })
    }

    /// Names the binary that carries the egress forwarder ([`egress::forward`]): the running
    /// `soul` or `soul-agent`. Without one, networked skills refuse to run.
    pub fn with_forwarder(mut self, program: PathBuf) -> Self {
        self.forwarder = Some(program);
        self
    }

    /// The policies.
    pub fn policies(&self) -> &Policies {
        &self.policies
    }

    /// Whether bubblewrap was found.
    pub fn available(&self) -> bool {
        self.bwrap.is_some()
    }

    /// Runs `argv` in `workdir` (absolute) inside bubblewrap, without network, seeing only
    /// `workdir` and the `declared` folders (see [`View`]).
    pub async fn run(
        &self,
        argv: &[String],
        workdir: &Path,
        declared: &[Declared],
        limits: Limits,
    ) -> Result<Outcome, SandboxError> {
        self.run_with(argv, workdir, declared, limits, &Allowlist::none())
            .await
    }

    /// Runs `argv` in `workdir` (absolute) inside bubblewrap; with hosts in `network`, the run
    /// reaches those (and nothing else) through its own egress proxy.
    pub async fn run_with(
        &self,
        argv: &[String],
        workdir: &Path,
        declared: &[Declared],
        limits: Limits,
        network: &Allowlist,
    ) -> Result<Outcome, SandboxError> {
        let bwrap_path = self.bwrap.as_ref().ok_or(SandboxError::Missing)?;
        let workdir = policy::normalize(workdir)
            .ok_or_else(|| SandboxError::Refused(format!("bad folder {}", workdir.display())))?;
        let view = View::plan(&self.policies, &workdir, declared).map_err(SandboxError::Refused)?;
        self.check_argv(argv, &workdir, &view)?;
        let egress = self.egress(network, view.network, &workdir).await?;
        let mount = egress
            .as_ref()
            .zip(self.forwarder.as_ref())
            .map(|(e, f)| e.mount(f));
        let args = bwrap::args(&bwrap::Plan {
            view: &view,
            workdir: &workdir,
            egress: mount.as_ref(),
            memory: limits.memory,
            processes: limits.processes,
            argv,
        });
        tracing::debug!(?argv, workdir = %workdir.display(), %network, mounts = ?view.mounts, "sandbox run");
        // The launcher's rlimit does not bind host root; a pids cgroup does, where allowed.
        // bubblewrap's own two processes and the launcher count too.
        let group = cgroup::RunGroup::create(limits.processes + 4);
        if group.is_none() {
            tracing::debug!("no pids cgroup for this run; RLIMIT_NPROC only");
        }
        let outcome = run_bwrap(bwrap_path, &args, group.as_ref().map(|g| g.dir()), limits).await;
        drop(group);
        let mut outcome = outcome?;
        outcome.removed = view.quarantine();
        if !outcome.removed.is_empty() {
            tracing::warn!(removed = ?outcome.removed, "a run left files with denied extensions; removed");
        }
        if let Some(e) = egress {
            // The proxy's refusals are the run's own status: curl only says "403".
            for why in e.refusals() {
                outcome
                    .error
                    .push_str(&format!("\nsoul egress refused: {why}"));
            }
            tracing::info!(
                bytes = e.bytes(),
                refused = e.refusals().len(),
                "egress of the run"
            );
        }
        Ok(outcome)
    }

    /// The run's egress proxy when its skill names hosts: only where the working folder's
    /// policy allows the network, and only with a forwarder that answers (fail closed).
    async fn egress(
        &self,
        network: &Allowlist,
        allowed: Network,
        workdir: &Path,
    ) -> Result<Option<Egress>, SandboxError> {
        if network.is_empty() {
            return Ok(None);
        }
        if allowed != Network::Allow {
            return Err(SandboxError::Refused(format!(
                "the skill names network hosts ({network}), but the policy for {} has `network: Deny`; allow the network for that folder in {POLICY_FILE} or remove the hosts from the skill",
                workdir.display()
            )));
        }
        let forwarder = self.forwarder.as_ref().ok_or_else(|| {
            SandboxError::Egress("this program does not name an egress forwarder".into())
        })?;
        egress::check_forwarder(forwarder).await?;
        Ok(Some(Egress::start(
            network.clone(),
            EgressLimits::default(),
        )?))
    }

    /// The program must be allowlisted (or a file in a mounted folder whose policy allows
    /// execute); no argument may name a file with a denied extension, however it is written;
    /// a file argument must pass its folder's extension and size rules.
    fn check_argv(&self, argv: &[String], workdir: &Path, view: &View) -> Result<(), SandboxError> {
        let program = argv
            .first()
            .ok_or_else(|| SandboxError::Refused("an empty command".into()))?;
        if program.contains('/') {
            let path = policy::normalize(&workdir.join(program)).unwrap_or_default();
            if !view.executable(&path) {
                return Err(SandboxError::Refused(format!(
                    "{program} is not in a mounted folder whose policy allows execute"
                )));
            }
        } else if !self.policies.allow_commands.iter().any(|c| c == program) {
            return Err(SandboxError::Refused(format!(
                "{program} is not in allow_commands ({})",
                self.policies.allow_commands.join(", ")
            )));
        }
        for arg in &argv[1..] {
            // By the name's end, not its path: `/proc/self/cwd/x.nsec` and `a/../x.nsec` are
            // the same file inside the sandbox.
            let ext = Path::new(arg)
                .extension()
                .map(|e| e.to_string_lossy().to_ascii_lowercase());
            if let Some(ext) = ext.filter(|e| view.denied_extensions.contains(e)) {
                return Err(SandboxError::Refused(format!(
                    "{arg:?} names a .{ext} file, an extension the folder policy denies"
                )));
            }
            if arg.starts_with('-') || !(arg.contains('/') || workdir.join(arg).exists()) {
                continue;
            }
            if let Some(path) = policy::normalize(&workdir.join(arg)) {
                self.policies
                    .check_file(&path)
                    .map_err(SandboxError::Refused)?;
            }
        }
        Ok(())
    }
}

async fn run_bwrap(
    bwrap: &Path,
    args: &[String],
    group: Option<&Path>,
    limits: Limits,
) -> Result<Outcome, SandboxError> {
    let spawned = Instant::now();
    let mut command = match group {
        // A shell that joins the run's cgroup, then becomes bubblewrap: every process of the
        // run is born inside the group.
        Some(dir) => {
            let mut c = Command::new("/bin/sh");
            c.args([
                "-c",
                r#"echo $$ > "$1/cgroup.procs" || exit 125; shift; exec "$@""#,
            ])
            .arg("soul-sandbox-cgroup")
            .arg(dir)
            .arg(bwrap);
            c
        }
        None => Command::new(bwrap),
    };
    // Nothing of the executor's environment reaches bubblewrap: its pid 1 inside the run is
    // readable there as /proc/1/environ.
    let mut child = command
        .env_clear()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(SandboxError::Spawn)?;
    let (started_tx, started_rx) = oneshot::channel();
    let out = tokio::spawn(read_capped(child.stdout.take(), limits.output_cap, None));
    let err = tokio::spawn(read_capped(
        child.stderr.take(),
        limits.output_cap,
        Some(started_tx),
    ));
    let started = match tokio::time::timeout(limits.start, started_rx).await {
        Ok(Ok(())) => Instant::now(),
        Ok(Err(_)) => {
            // stderr closed without the marker: bubblewrap itself failed (bad mount, no
            // namespaces); its message is on stderr.
            let _ = child.wait().await;
            let (e, _) = err.await.unwrap_or_default();
            return Err(SandboxError::StartTimeout(
                limits.start,
                format!("bubblewrap exited before the command started: {}", e.trim()),
            ));
        }
        Err(_) => {
            let _ = child.kill().await;
            return Err(SandboxError::StartTimeout(
                limits.start,
                format!("still setting up after {:?}", spawned.elapsed()),
            ));
        }
    };
    let (exit_code, timed_out) = match tokio::time::timeout(limits.run, child.wait()).await {
        Ok(Ok(status)) => (status.code(), false),
        Ok(Err(e)) => return Err(SandboxError::Spawn(e)),
        Err(_) => {
            // SIGKILL to bubblewrap; --die-with-parent takes the command down with it.
            let _ = child.kill().await;
            (None, true)
        }
    };
    let elapsed = started.elapsed();
    let (output, cut_out) = out.await.unwrap_or_default();
    let (error, cut_err) = err.await.unwrap_or_default();
    Ok(Outcome {
        exit_code,
        output,
        error,
        timed_out,
        truncated: cut_out || cut_err,
        elapsed,
        removed: Vec::new(),
    })
}

/// Reads `pipe` to its end, keeping at most `cap` bytes. With `started`, the first line is
/// expected to be the launcher's marker: it is signalled and dropped from the text.
async fn read_capped(
    pipe: Option<impl AsyncRead + Unpin>,
    cap: usize,
    mut started: Option<oneshot::Sender<()>>,
) -> (String, bool) {
    let Some(mut pipe) = pipe else {
        return (String::new(), false);
    };
    let mut kept = Vec::new();
    let mut cut = false;
    let mut buf = [0u8; 8192];
    let marker = format!("{}\n", bwrap::STARTED);
    loop {
        let n = match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        kept.extend_from_slice(&buf[..n]);
        if started.is_some() {
            if kept.starts_with(marker.as_bytes()) {
                kept.drain(..marker.len());
                if let Some(tx) = started.take() {
                    let _ = tx.send(());
                }
            } else if kept.len() >= marker.len() || !marker.as_bytes().starts_with(&kept) {
                // Not our launcher speaking: bubblewrap's own error. Keep reading it.
                started = None;
            }
        }
        if kept.len() > cap {
            kept.truncate(cap);
            cut = true;
        }
    }
    (String::from_utf8_lossy(&kept).into_owned(), cut)
}

/// The launcher's own behaviour, with `sh` and `sleep` standing in for a bubblewrap that hangs
/// while setting up, dies before the command starts, or starts a command that says too much
/// (the real bubblewrap runs in the cross-process sandbox tests).
#[cfg(test)]
mod tests {
    use super::*;

    fn limits(start_ms: u64, cap: usize) -> Limits {
        Limits {
            start: Duration::from_millis(start_ms),
            run: Duration::from_secs(20),
            output_cap: cap,
            ..Limits::default()
        }
    }

    fn sh(script: &str) -> Vec<String> {
        vec!["-c".into(), script.into()]
    }

    #[tokio::test]
    async fn a_sandbox_that_never_comes_up_is_a_start_time_out() {
        let got = run_bwrap(Path::new("sleep"), &["20".into()], None, limits(300, 1024)).await;
        match got {
            Err(SandboxError::StartTimeout(limit, why)) => {
                assert_eq!(limit, Duration::from_millis(300));
                assert!(why.contains("still setting up"), "{why}");
            }
            other => panic!("expected a start time-out, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn bubblewrap_failing_before_the_command_says_why() {
        let script =
            sh("echo 'bwrap: Creating new namespace failed: Operation not permitted' >&2; exit 1");
        match run_bwrap(Path::new("sh"), &script, None, limits(10_000, 1024)).await {
            Err(SandboxError::StartTimeout(_, why)) => assert!(
                why.contains("exited before the command started")
                    && why.contains("Creating new namespace failed"),
                "{why}"
            ),
            other => panic!("expected bubblewrap's own error, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn output_past_the_cap_is_read_and_dropped() {
        let script = sh(&format!(
            "printf '{STARTED}\\n' >&2; head -c 100000 /dev/zero | tr '\\0' x; echo done >&2",
            STARTED = bwrap::STARTED
        ));
        let out = run_bwrap(Path::new("sh"), &script, None, limits(10_000, 1024))
            .await
            .unwrap();
        assert_eq!(
            out.exit_code,
            Some(0),
            "the command was not blocked by a full pipe"
        );
        assert_eq!(out.output.len(), 1024);
        assert!(out.output.chars().all(|c| c == 'x'));
        assert!(out.truncated);
        assert_eq!(out.error.trim(), "done", "the marker is not part of stderr");
        assert!(!out.timed_out);
    }
}
