//! A pids cgroup per run, where the host lets the executor make one.
//!
//! RLIMIT_NPROC (set by the launcher) counts processes per real user and is ignored for the
//! host's root (kernel: `fork` exempts `INIT_USER`), and the sandbox runs as the executor's
//! own uid: an executor running as root (as in CI) would have no process limit. A cgroup's
//! `pids.max` holds whatever the uid. The run's group is made under the cgroup v1 `pids`
//! hierarchy, or under the executor's own cgroup v2 when `pids` can be enabled there; bubblewrap
//! is started by a `/bin/sh` that first moves itself into the group, so every process of the
//! run is counted from the start. Where neither is writable, the rlimit alone remains.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT: AtomicU64 = AtomicU64::new(0);

/// One run's cgroup; removed when dropped.
#[derive(Debug)]
pub struct RunGroup {
    dir: PathBuf,
}

impl RunGroup {
    /// A new group allowing `max` processes, or `None` where the host does not allow one.
    pub fn create(max: u64) -> Option<Self> {
        let name = format!(
            "soul-run-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let parent = v1_parent().or_else(v2_parent)?;
        let dir = parent.join(name);
        std::fs::create_dir(&dir).ok()?;
        let group = Self { dir };
        std::fs::write(group.dir.join("pids.max"), max.to_string()).ok()?;
        Some(group)
    }

    /// Its folder (its `cgroup.procs` takes the launcher's pid).
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for RunGroup {
    fn drop(&mut self) {
        // The run's pid namespace is gone with bubblewrap; its last processes may still be
        // reaped for a moment.
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        tracing::warn!(dir = %self.dir.display(), "could not remove a run's cgroup");
    }
}

fn v1_parent() -> Option<PathBuf> {
    let root = Path::new("/sys/fs/cgroup/pids");
    if !root.join("cgroup.procs").exists() {
        return None;
    }
    let parent = root.join("soul-sandbox");
    std::fs::create_dir_all(&parent).ok()?;
    Some(parent)
}

fn v2_parent() -> Option<PathBuf> {
    let root = Path::new("/sys/fs/cgroup");
    let controllers = std::fs::read_to_string(root.join("cgroup.controllers")).ok()?;
    if !controllers.split_whitespace().any(|c| c == "pids") {
        return None;
    }
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let own = own.lines().find_map(|l| l.strip_prefix("0::"))?;
    let parent = root.join(own.trim_start_matches('/'));
    let enabled = std::fs::read_to_string(parent.join("cgroup.subtree_control")).ok()?;
    if !enabled.split_whitespace().any(|c| c == "pids") {
        std::fs::write(parent.join("cgroup.subtree_control"), "+pids").ok()?;
    }
    Some(parent)
}
