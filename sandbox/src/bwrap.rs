//! The bubblewrap command line for one run, built from the folder policies.
//!
//! Flags that work where soul runs (checked with Debian 12's bubblewrap 0.8 as root in a
//! container): `--unshare-all --unshare-user` (a user namespace is required: the launcher's
//! CAP_SYS_ADMIN for the noexec remounts lives only there), every capability dropped before the
//! command, `--die-with-parent`, `--new-session`, `--clearenv` with PATH, LANG, HOME (the
//! working folder) and TMPDIR. The network namespace is always new and empty: a networked run's
//! only way out is its egress proxy (see [`crate::egress`]). The sandbox sees a read-only `/usr`
//! (and the `/bin`, `/lib*` links), a few files of `/etc` needed for names and certificates, a
//! private scratch `/tmp`, a fresh `/proc` of its own pid namespace and `/dev`, and the mounts
//! of its [`View`] at their own paths, under parent folders made 0555 and a root remounted
//! read-only. Mounts go from the least to the most specific, so a Deny folder inside a mounted
//! one becomes an empty read-only tmpfs.

use std::path::{Path, PathBuf};

use super::egress::Mount as EgressMount;
use super::view::{Mount, View};

/// Where bubblewrap is, if installed: `SOUL_BWRAP` when set (a non-standard install), else
/// `bwrap` on `PATH`, `/usr/bin` or `/bin`.
pub fn find() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SOUL_BWRAP") {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin"), PathBuf::from("/bin")])
        .map(|d| d.join("bwrap"))
        .find(|p| p.is_file())
}

/// The marker our launcher writes to stderr once the sandbox is up, before the command starts.
pub const STARTED: &str = "\u{1e}soul-sandbox-started";

/// Files of `/etc` a command may need (DNS, users, certificates, time zone); never the rest.
const ETC: &[&str] = &[
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
    "/etc/localtime",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/alternatives",
];

/// What to run and where.
pub struct Plan<'a> {
    /// What the run sees.
    pub view: &'a View,
    /// The working folder (absolute, normalized, mounted).
    pub workdir: &'a Path,
    /// The run's egress (proxy socket and forwarder), when its skill names hosts.
    pub egress: Option<&'a EgressMount>,
    /// Address space of each process, bytes (RLIMIT_AS).
    pub memory: u64,
    /// Processes of the run (RLIMIT_NPROC).
    pub processes: u64,
    /// Program (bare name or absolute path) and its arguments.
    pub argv: &'a [String],
}

/// The launcher, run by `/bin/sh` inside the sandbox with the noexec mounts and the command
/// as positional parameters (never through the shell's parser, so arguments cannot inject
/// shell code). It remounts each non-executable folder `noexec` (bubblewrap has no flag for
/// it; the remount needs CAP_SYS_ADMIN, held only inside the run's own user namespace), marks
/// the start on stderr, drops every capability for good (`setpriv`), and runs the command
/// under its limits (`prlimit`).
fn launcher() -> String {
    format!(
        r#"as=$1 nproc=$2 fsize=$3 n=$4; shift 4
while [ "$n" -gt 0 ]; do
  mount -o "remount,bind,noexec,nosuid,nodev$1" -- "$2" || {{ echo "soul-sandbox: cannot make $2 no-execute" >&2; exit 125; }}
  shift 2; n=$((n - 1))
done
printf '{STARTED}\n' >&2
exec setpriv --no-new-privs --inh-caps=-all --bounding-set=-all -- prlimit "--as=$as" "--nproc=$nproc" "--fsize=$fsize" --nofile=256 --core=0 -- "$@""#
    )
}

/// The arguments to give `bwrap`.
pub fn args(plan: &Plan<'_>) -> Vec<String> {
    let workdir = plan.workdir.to_string_lossy().into_owned();
    let mut a: Vec<String> = [
        "--unshare-all",
        // Its own user namespace always (not "try"): the launcher's CAP_SYS_ADMIN for the
        // noexec remounts must not be the host's.
        "--unshare-user",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--cap-add",
        "CAP_SYS_ADMIN",
        "--cap-add",
        "CAP_SETPCAP",
        "--clearenv",
        "--setenv",
        "PATH",
        "/usr/bin:/bin",
        "--setenv",
        "LANG",
        "C.UTF-8",
        "--setenv",
        "TMPDIR",
        "/tmp",
        "--ro-bind",
        "/usr",
        "/usr",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.extend(["--setenv".into(), "HOME".into(), workdir.clone()]);
    if let Some(e) = plan.egress {
        a.extend(e.bwrap_args());
    }
    for top in ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] {
        let p = Path::new(top);
        match std::fs::read_link(p) {
            Ok(target) => a.extend([
                "--symlink".into(),
                target.to_string_lossy().into_owned(),
                top.into(),
            ]),
            Err(_) if p.is_dir() => a.extend(["--ro-bind".into(), top.into(), top.into()]),
            Err(_) => {}
        }
    }
    for etc in ETC {
        a.extend(["--ro-bind-try".into(), (*etc).into(), (*etc).into()]);
    }
    // The folders above each mounted folder exist only as read-only (0555) directories:
    // without capabilities even root cannot write next to a mounted folder.
    let binds: Vec<&Path> = plan.view.binds().map(|(p, _, _)| p).collect();
    let mut made: Vec<PathBuf> = Vec::new();
    let system = ["/", "/tmp", "/usr", "/proc", "/dev", "/etc"];
    for path in &binds {
        let mut ancestors: Vec<&Path> = path.ancestors().skip(1).collect();
        ancestors.reverse();
        for dir in ancestors
            .into_iter()
            .filter(|d| !system.iter().any(|s| *d == Path::new(s)))
        {
            let covered = binds.iter().any(|b| dir.starts_with(b));
            if !covered && !made.iter().any(|m| m == dir) {
                let d = dir.to_string_lossy().into_owned();
                a.extend(["--perms".into(), "0555".into(), "--dir".into(), d]);
                made.push(dir.to_path_buf());
            }
        }
    }
    // Least specific first: bwrap applies mounts in order, so deeper ones override.
    let mut hidden_dirs = Vec::new();
    let mut noexec: Vec<(String, String)> = Vec::new();
    for m in &plan.view.mounts {
        match m {
            Mount::Bind { path, write, exec } => {
                let p = path.to_string_lossy().into_owned();
                let flag = if *write { "--bind" } else { "--ro-bind" };
                a.extend([flag.into(), p.clone(), p.clone()]);
                if !exec {
                    noexec.push((if *write { "" } else { ",ro" }.into(), p));
                }
            }
            Mount::HideDir(path) => {
                let p = path.to_string_lossy().into_owned();
                a.extend(["--perms".into(), "0555".into(), "--tmpfs".into(), p.clone()]);
                hidden_dirs.push(p);
            }
            Mount::HideFile(path) => {
                let p = path.to_string_lossy().into_owned();
                a.extend(["--ro-bind".into(), "/dev/null".into(), p]);
            }
        }
    }
    for p in hidden_dirs {
        a.extend(["--remount-ro".into(), p]);
    }
    // Everything not mounted above (the root, the 0555 folders) is read-only; /tmp stays a
    // private scratch space that vanishes with the run.
    a.extend(["--remount-ro".into(), "/".into()]);
    a.extend(["--chdir".into(), workdir]);
    a.extend([
        "--".into(),
        "/bin/sh".into(),
        "-c".into(),
        launcher(),
        "soul-sandbox".into(),
        plan.memory.to_string(),
        plan.processes.to_string(),
        plan.view.max_file_size.max(1).to_string(),
        noexec.len().to_string(),
    ]);
    for (opts, path) in noexec {
        a.extend([opts, path]);
    }
    match plan.egress {
        Some(e) => a.extend(e.wrap(plan.argv)),
        None => a.extend(plan.argv.iter().cloned()),
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{Access, Policies, PolicyFile};
    use crate::view::Declared;

    #[test]
    fn only_the_view_is_mounted_deeper_last_and_not_executable() {
        let tmp = tempfile::tempdir().unwrap();
        let town = std::fs::canonicalize(tmp.path()).unwrap();
        for d in ["ws/private", "dl", "bin"] {
            std::fs::create_dir_all(town.join(d)).unwrap();
        }
        let raw: PolicyFile = serde_yaml_ng::from_str(
            "allow_commands: [ls]\nfolders:\n  - {path: ws/private, access: Deny}\n  - {path: ws, access: ReadWrite, max_file_size: 1000}\n  - {path: dl, access: ReadWrite, network: Allow}\n  - {path: bin, access: ReadOnly, execute: true}\n",
        )
        .unwrap();
        let policies = Policies::from_file(raw, &town).unwrap();
        let view = View::plan(
            &policies,
            &town.join("ws"),
            &[Declared {
                path: town.join("bin"),
                access: Access::ReadOnly,
            }],
        )
        .unwrap();
        let argv = vec!["ls".to_string()];
        let a = args(&Plan {
            view: &view,
            workdir: &town.join("ws"),
            egress: None,
            memory: 1 << 30,
            processes: 64,
            argv: &argv,
        });
        let s = |p: &str| town.join(p).to_string_lossy().into_owned();
        let pos = |p: &str| a.iter().position(|x| *x == s(p)).unwrap();
        assert!(pos("ws") < pos("ws/private"), "{a:?}");
        assert!(!a.contains(&s("dl")), "dl is not this run's: {a:?}");
        assert!(!a.contains(&"--share-net".to_string()));
        assert!(a
            .windows(2)
            .any(|w| w == ["--unshare-user", "--die-with-parent"]));
        let tail = &a[a.iter().position(|x| x == "soul-sandbox").unwrap()..];
        assert_eq!(
            tail,
            [
                "soul-sandbox",
                "1073741824",
                "64",
                "1000",
                "1",
                "",
                &s("ws"),
                "ls"
            ],
            "limits, one noexec mount (bin may execute), the command"
        );
    }
}
