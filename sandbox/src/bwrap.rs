//! The bubblewrap command line for one run, built from the folder policies.
//!
//! Flags that work where soul runs (checked with Debian 12's bubblewrap 0.8 as root in a
//! container, where every namespace, user included, could be created): `--unshare-all` (its
//! user namespace is "try": skipped where the kernel forbids it; the network namespace is
//! always new and empty, a networked run's only way out is its egress proxy, see
//! [`crate::egress`]), `--cap-drop ALL`, `--die-with-parent`, `--new-session`, `--clearenv`. The sandbox
//! sees a read-only `/usr` (and the `/bin`, `/lib*` links), a few files of `/etc` needed for
//! names and certificates, a private scratch `/tmp`, `/proc` and `/dev`, and the policy folders
//! at their own paths, under parent folders made 0555 and a root remounted read-only, so that
//! nothing outside a ReadWrite folder (and the scratch `/tmp`) can be written. Policies are
//! mounted from the least to the most specific, so a deeper policy overrides its parent: a Deny
//! folder inside a visible one becomes an empty tmpfs (its name stays, its contents are gone).
//! The town's `keys/` is always hidden, whatever the policies say.

use std::path::{Path, PathBuf};

use super::egress::Mount;
use super::policy::{Access, Policies};

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
    /// The policies.
    pub policies: &'a Policies,
    /// The working folder (absolute, normalized, visible).
    pub workdir: &'a Path,
    /// The run's egress (proxy socket and forwarder), when its skill names hosts.
    pub egress: Option<&'a Mount>,
    /// The town's `keys/`, hidden in every sandbox.
    pub keys_dir: &'a Path,
    /// Largest file the command may write, in bytes (the working folder's `max_file_size`).
    pub max_file_size: u64,
    /// Program (bare name or absolute path) and its arguments.
    pub argv: &'a [String],
}

/// The arguments to give `bwrap`.
pub fn args(plan: &Plan<'_>) -> Vec<String> {
    let mut a: Vec<String> = [
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--clearenv",
        "--setenv",
        "PATH",
        "/usr/bin:/bin",
        "--setenv",
        "HOME",
        "/tmp",
        "--setenv",
        "LANG",
        "C.UTF-8",
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
    // The folders above each visible policy folder exist only as read-only (0555) directories:
    // without capabilities even root cannot write next to a policy folder.
    let mut made: Vec<PathBuf> = Vec::new();
    for f in plan
        .policies
        .folders
        .iter()
        .rev()
        .filter(|f| f.access != Access::Deny)
    {
        let mut ancestors: Vec<&Path> = f.path.ancestors().skip(1).collect();
        ancestors.reverse();
        // The root and the mounts made above are not touched (/tmp stays writable scratch).
        let system = ["/", "/tmp", "/usr", "/proc", "/dev", "/etc"];
        for dir in ancestors
            .into_iter()
            .filter(|d| !system.iter().any(|s| *d == Path::new(s)))
        {
            let covered = plan
                .policies
                .folders
                .iter()
                .any(|g| g.access != Access::Deny && dir.starts_with(&g.path));
            if !covered && !made.iter().any(|m| m == dir) {
                let d = dir.to_string_lossy().into_owned();
                a.extend(["--perms".into(), "0555".into(), "--dir".into(), d]);
                made.push(dir.to_path_buf());
            }
        }
    }
    // Least specific first: bwrap applies mounts in order, so deeper policies override.
    for f in plan.policies.folders.iter().rev() {
        let p = f.path.to_string_lossy().into_owned();
        match f.access {
            Access::ReadWrite => a.extend(["--bind-try".into(), p.clone(), p]),
            Access::ReadOnly => a.extend(["--ro-bind-try".into(), p.clone(), p]),
            Access::Deny => {
                // Only a Deny inside a visible parent needs covering; elsewhere it is simply
                // never mounted.
                if f.path.exists()
                    && plan.policies.folders.iter().any(|g| {
                        g.access != Access::Deny && f.path.starts_with(&g.path) && g.path != f.path
                    })
                {
                    a.extend(hide(&f.path));
                }
            }
        }
    }
    if plan.keys_dir.exists()
        && plan
            .policies
            .folders
            .iter()
            .any(|g| g.access != Access::Deny && plan.keys_dir.starts_with(&g.path))
    {
        a.extend(hide(plan.keys_dir));
    }
    // Everything not mounted above (the root, the 0555 folders) is read-only; /tmp stays a
    // private scratch space that vanishes with the run.
    a.extend(["--remount-ro".into(), "/".into()]);
    a.extend([
        "--chdir".into(),
        plan.workdir.to_string_lossy().into_owned(),
    ]);
    // A fixed launcher: it marks the start on stderr, caps file size (512-byte blocks), and
    // execs the command with its arguments as positional parameters, never through the shell's
    // parser, so arguments cannot inject shell code.
    let blocks = plan.max_file_size.div_ceil(512).max(1);
    a.extend([
        "--".into(),
        "/bin/sh".into(),
        "-c".into(),
        format!("printf '{STARTED}\\n' >&2; ulimit -f {blocks}; exec \"$@\""),
        "soul-sandbox".into(),
    ]);
    match plan.egress {
        Some(e) => a.extend(e.wrap(plan.argv)),
        None => a.extend(plan.argv.iter().cloned()),
    }
    a
}

/// Covers `path` inside the sandbox: an empty tmpfs for a folder, `/dev/null` for a file.
fn hide(path: &Path) -> Vec<String> {
    let p = path.to_string_lossy().into_owned();
    if path.is_file() {
        vec!["--ro-bind".into(), "/dev/null".into(), p]
    } else {
        vec!["--tmpfs".into(), p]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::PolicyFile;

    #[test]
    fn deeper_policies_mount_after_their_parents_and_keys_are_hidden() {
        let raw: PolicyFile = serde_yaml_ng::from_str(
            "allow_commands: [ls]\nfolders:\n  - {path: /, access: ReadOnly}\n",
        )
        .unwrap();
        assert!(
            Policies::from_file(raw, Path::new("/town")).is_err(),
            "not the whole disk"
        );
        let tmp = tempfile::tempdir().unwrap();
        let town = tmp.path();
        std::fs::create_dir_all(town.join("ws/private")).unwrap();
        std::fs::create_dir_all(town.join("keys")).unwrap();
        let raw: PolicyFile = serde_yaml_ng::from_str(
            "allow_commands: [ls]\nfolders:\n  - {path: ws/private, access: Deny}\n  - {path: ws, access: ReadWrite}\n  - {path: '.', access: ReadOnly}\n",
        )
        .unwrap();
        let policies = Policies::from_file(raw, town).unwrap();
        let argv = vec!["ls".to_string()];
        let a = args(&Plan {
            policies: &policies,
            workdir: &town.join("ws"),
            egress: None,
            keys_dir: &town.join("keys"),
            max_file_size: 1024,
            argv: &argv,
        });
        let s = |p: &str| {
            let path = if p.is_empty() {
                town.to_path_buf()
            } else {
                town.join(p)
            };
            path.to_string_lossy().into_owned()
        };
        let pos = |p: &str| a.iter().position(|x| *x == s(p)).unwrap();
        assert!(
            pos("") < pos("ws") && pos("ws") < pos("ws/private"),
            "{a:?}"
        );
        assert!(a.contains(&s("keys")), "keys hidden: {a:?}");
        assert!(!a.contains(&"--share-net".to_string()));
        assert!(a.iter().any(|x| x == "--remount-ro"));
        assert!(
            !a.windows(2).any(|w| w == ["--dir", "/tmp"]),
            "scratch /tmp stays writable"
        );
        assert!(a.iter().any(|x| x.contains("ulimit -f 2;")));
        assert_eq!(a.last().map(String::as_str), Some("ls"));
    }
}
