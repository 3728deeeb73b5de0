//! Network by allowlist, never the host (issue 13). Every run has its own empty network
//! namespace. A run whose skill names hosts (`network: [host[:port], …]`) gets one way out:
//! soul's egress proxy ([`proxy`]), started by the executor for that run alone on a Unix
//! socket in a private folder, bind-mounted into the sandbox and bridged to
//! `127.0.0.1:3128` inside the namespace by [`forward`], a hidden mode of the soul binaries
//! that also starts the command. `http_proxy`, `https_proxy` and `ALL_PROXY` point there.
//! The proxy refuses hosts not on the list and, whatever the list says, every address of
//! [`refuse`]. A program that ignores the proxy variables finds nothing but the empty
//! namespace. The proxy dies with the run ([`Egress`] is dropped).
//!
//! # Layout
//! - [`allowlist`]: `host[:port]` entries and matching.
//! - [`refuse`]: the addresses no run reaches.
//! - [`proxy`]: the HTTP proxy (CONNECT and absolute-form http).
//! - [`forward`]: the in-sandbox TCP → Unix socket forwarder.

pub mod allowlist;
pub mod forward;
pub mod proxy;
pub mod refuse;

use crate::SandboxError;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::UnixListener;
use tokio::task::JoinHandle;

pub use allowlist::{Allowlist, Host, HostPort};
pub use proxy::EgressLimits;

/// Where the proxy's folder (holding its socket) appears inside the sandbox.
pub const SANDBOX_SOCKET_DIR: &str = "/run/soul/egress";
/// Where the forwarder binary appears inside the sandbox.
pub const SANDBOX_FORWARDER: &str = "/run/soul/forward";
/// The proxy's address inside the run's own network namespace.
pub const SANDBOX_PROXY: &str = "127.0.0.1:3128";
const SOCKET_NAME: &str = "proxy.sock";

/// One run's egress proxy; dropping it stops the proxy and every connection it carries.
#[derive(Debug)]
pub struct Egress {
    dir: tempfile::TempDir,
    task: JoinHandle<()>,
    shared: Arc<proxy::Shared>,
}

impl Egress {
    /// Starts a proxy for `allow` on a fresh socket in a private (0700) folder.
    pub fn start(allow: Allowlist, limits: EgressLimits) -> Result<Self, SandboxError> {
        let dir = tempfile::Builder::new()
            .prefix("soul-egress-")
            .tempdir()
            .map_err(|e| SandboxError::Egress(format!("cannot make the proxy's folder: {e}")))?;
        let listener = UnixListener::bind(dir.path().join(SOCKET_NAME))
            .map_err(|e| SandboxError::Egress(format!("cannot open the proxy's socket: {e}")))?;
        let shared = Arc::new(proxy::Shared {
            allow,
            limits,
            used: AtomicU64::new(0),
            refusals: Mutex::new(Vec::new()),
        });
        let task = tokio::spawn(proxy::serve(listener, shared.clone()));
        Ok(Self { dir, task, shared })
    }

    /// The proxy's socket on this machine.
    pub fn socket(&self) -> PathBuf {
        self.dir.path().join(SOCKET_NAME)
    }

    /// What the proxy refused so far, one reason each.
    pub fn refusals(&self) -> Vec<String> {
        self.shared
            .refusals
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default()
    }

    /// Bytes carried so far, both directions.
    pub fn bytes(&self) -> u64 {
        self.shared.used.load(Ordering::Relaxed)
    }

    /// What bubblewrap needs to give a run this proxy: `forwarder` is the soul binary.
    pub fn mount(&self, forwarder: &Path) -> Mount {
        Mount {
            socket_dir: self.dir.path().to_path_buf(),
            forwarder: forwarder.to_path_buf(),
        }
    }
}

impl Drop for Egress {
    fn drop(&mut self) {
        // Aborting the accept loop drops its JoinSet, which aborts every connection.
        self.task.abort();
    }
}

/// The egress parts of one bubblewrap command line.
#[derive(Debug, Clone)]
pub struct Mount {
    socket_dir: PathBuf,
    forwarder: PathBuf,
}

impl Mount {
    /// The mounts and proxy variables (after `--clearenv`, before the command).
    pub fn bwrap_args(&self) -> Vec<String> {
        let proxy = format!("http://{SANDBOX_PROXY}");
        let mut a = vec![
            "--ro-bind".to_string(),
            self.socket_dir.to_string_lossy().into_owned(),
            SANDBOX_SOCKET_DIR.into(),
            "--ro-bind".into(),
            self.forwarder.to_string_lossy().into_owned(),
            SANDBOX_FORWARDER.into(),
        ];
        for var in [
            "http_proxy",
            "HTTP_PROXY",
            "https_proxy",
            "HTTPS_PROXY",
            "all_proxy",
            "ALL_PROXY",
        ] {
            a.extend(["--setenv".into(), var.into(), proxy.clone()]);
        }
        a
    }

    /// The command, started by the forwarder once its port is open.
    pub fn wrap(&self, argv: &[String]) -> Vec<String> {
        let mut a = vec![
            SANDBOX_FORWARDER.to_string(),
            forward::MODE.into(),
            SANDBOX_PROXY.into(),
            format!("{SANDBOX_SOCKET_DIR}/{SOCKET_NAME}"),
            "--".into(),
        ];
        a.extend(argv.iter().cloned());
        a
    }
}

/// Proves `program` has the forwarder mode (it answers `--check`), so that a networked run
/// never starts with a forwarder that is missing or is some other program.
pub async fn check_forwarder(program: &Path) -> Result<(), SandboxError> {
    let out = tokio::time::timeout(
        Duration::from_secs(10),
        tokio::process::Command::new(program)
            .args([forward::MODE, "--check"])
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .output(),
    )
    .await
    .map_err(|_| {
        SandboxError::Egress(format!(
            "the forwarder {} did not answer",
            program.display()
        ))
    })?
    .map_err(|e| {
        SandboxError::Egress(format!(
            "cannot start the forwarder {}: {e}",
            program.display()
        ))
    })?;
    if out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == forward::CHECK_ANSWER
    {
        Ok(())
    } else {
        Err(SandboxError::Egress(format!(
            "{} is not soul's forwarder (run skills from `soul up` or `soul-agent`, whose binaries carry it)",
            program.display()
        )))
    }
}

#[cfg(test)]
mod tests;
