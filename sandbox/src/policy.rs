//! Folder policies (seed 004): which paths a sandboxed command sees, and how.
//!
//! Read from the town's `skills/_policy.yaml`. Every policy names a path (relative to the town
//! directory, or absolute) and its access; for any path the most specific policy (the longest
//! policy path that contains it) wins, so `workspace` may be ReadWrite while `workspace/private`
//! is Deny. A path no policy covers is not in the sandbox at all (fail closed).

use std::path::{Component, Path, PathBuf};

use serde::Deserialize;

use super::SandboxError;

/// How a folder appears inside the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Access {
    /// Not visible at all.
    #[serde(alias = "deny")]
    Deny,
    /// Visible, read-only.
    #[serde(alias = "read_only")]
    ReadOnly,
    /// Visible and writable.
    #[serde(alias = "read_write")]
    ReadWrite,
}

/// Whether a command whose working folder this is may reach the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
pub enum Network {
    /// Own network namespace with the host's network (DNS, public internet).
    #[serde(alias = "allow")]
    Allow,
    /// A network namespace of its own with nothing in it (not even the host's loopback).
    #[default]
    #[serde(alias = "deny")]
    Deny,
}

/// One folder policy as written in YAML.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FolderPolicy {
    /// The folder, relative to the town directory or absolute.
    pub path: PathBuf,
    /// Deny, ReadOnly or ReadWrite.
    pub access: Access,
    /// Network for commands working in this folder (default Deny).
    #[serde(default)]
    pub network: Network,
    /// Whether files inside may be run as the command (default no).
    #[serde(default)]
    pub execute: bool,
    /// If not empty, only files with these extensions may be passed to a command.
    #[serde(default)]
    pub allowed_extensions: Vec<String>,
    /// Files with these extensions may never be passed to a command.
    #[serde(default)]
    pub denied_extensions: Vec<String>,
    /// Largest file a command may read from or write into this folder, in bytes.
    #[serde(default = "default_max_file_size")]
    pub max_file_size: u64,
    /// Must be `true` for a folder outside the town: the owner says so on purpose.
    #[serde(default)]
    pub outside_town: bool,
}

/// The town's own files: never inside a sandbox, whatever a policy says (a run that could read
/// `keys/` signs as the town; one that could write `skills/` or `rules/` rewrites its own leash).
pub const CONTROL: &[&str] = &[
    "town.toml",
    "keys",
    "rules",
    "skills",
    "relay",
    "karma.sqlite",
];

/// Whether `path` (absolute, normalized) is, or is inside, one of `town`'s control files
/// (`karma.sqlite` with its `-wal` and `-shm` companions).
pub fn is_control(path: &Path, town: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(town) else {
        return false;
    };
    let Some(Component::Normal(first)) = rel.components().next() else {
        return false;
    };
    let first = first.to_string_lossy();
    CONTROL.iter().any(|c| first == *c) || first.starts_with("karma.sqlite")
}

fn default_max_file_size() -> u64 {
    10 * 1024 * 1024
}

/// `skills/_policy.yaml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyFile {
    /// Programs a skill may run, by bare name (`ls`, `sha256sum`): looked up in the sandbox's
    /// read-only `/usr/bin` and `/bin`.
    pub allow_commands: Vec<String>,
    /// The folder policies.
    pub folders: Vec<FolderPolicy>,
}

/// Folder policies with their paths made absolute, most specific first.
#[derive(Debug, Clone)]
pub struct Policies {
    /// Allowlisted program names.
    pub allow_commands: Vec<String>,
    /// Policies sorted from the most specific (deepest) path to the least.
    pub folders: Vec<FolderPolicy>,
}

impl Policies {
    /// Reads and validates `file`; relative policy paths are taken from `town`.
    pub fn load(file: &Path, town: &Path) -> Result<Self, SandboxError> {
        let text = std::fs::read_to_string(file).map_err(|e| SandboxError::Config {
            path: file.to_path_buf(),
            reason: format!("cannot read it: {e}"),
        })?;
        let raw: PolicyFile = serde_yaml_ng::from_str(&text).map_err(|e| SandboxError::Config {
            path: file.to_path_buf(),
            reason: e.to_string(),
        })?;
        Self::from_file(raw, town).map_err(|reason| SandboxError::Config {
            path: file.to_path_buf(),
            reason,
        })
    }

    /// Validates a parsed policy file.
    pub fn from_file(raw: PolicyFile, town: &Path) -> Result<Self, String> {
        for name in &raw.allow_commands {
            if name.is_empty() || name.contains('/') || name.starts_with('.') {
                return Err(format!(
                    "allow_commands: {name:?} must be a bare program name such as `ls`"
                ));
            }
        }
        let mut folders = Vec::with_capacity(raw.folders.len());
        for (i, mut f) in raw.folders.into_iter().enumerate() {
            let abs = if f.path.is_absolute() {
                f.path.clone()
            } else {
                town.join(&f.path)
            };
            f.path = normalize(&abs).ok_or_else(|| {
                format!(
                    "folders[{i}].path {:?} climbs above the root with `..`",
                    f.path
                )
            })?;
            if f.path == Path::new("/") {
                return Err(format!(
                    "folders[{i}].path: the whole file system cannot be a policy folder"
                ));
            }
            if f.access != Access::Deny && town.starts_with(&f.path) {
                return Err(format!(
                    "folders[{i}].path {:?} is the town folder or holds it, which would show town.toml, keys/, rules/ and skills/ to every run: name the folders runs need, such as `workspace`",
                    f.path
                ));
            }
            if is_control(&f.path, town) {
                return Err(format!(
                    "folders[{i}].path {:?} is one of the town's own files ({}), which no run may see: remove this policy",
                    f.path,
                    CONTROL.join(", ")
                ));
            }
            if !f.path.starts_with(town) && !f.outside_town && f.access != Access::Deny {
                return Err(format!(
                    "folders[{i}].path {:?} is outside the town: add `outside_town: true` to this policy if runs really should see it",
                    f.path
                ));
            }
            for ext in f
                .allowed_extensions
                .iter_mut()
                .chain(&mut f.denied_extensions)
            {
                *ext = ext.trim_start_matches('.').to_ascii_lowercase();
            }
            if folders.iter().any(|g: &FolderPolicy| g.path == f.path) {
                return Err(format!("folders[{i}].path {:?} is listed twice", f.path));
            }
            folders.push(f);
        }
        folders.sort_by_key(|f| std::cmp::Reverse(f.path.components().count()));
        Ok(Self {
            allow_commands: raw.allow_commands,
            folders,
        })
    }

    /// The policy that governs `path` (absolute, normalized): the most specific one containing it.
    pub fn governing(&self, path: &Path) -> Option<&FolderPolicy> {
        self.folders.iter().find(|f| path.starts_with(&f.path))
    }

    /// Whether `path` is visible inside the sandbox.
    pub fn visible(&self, path: &Path) -> bool {
        self.governing(path)
            .is_some_and(|f| f.access != Access::Deny)
    }

    /// Checks a file argument: extension rules and size of the governing policy.
    pub fn check_file(&self, path: &Path) -> Result<(), String> {
        let Some(policy) = self.governing(path) else {
            return Ok(()); // Outside every policy: invisible in the sandbox, nothing to leak.
        };
        if policy.access == Access::Deny {
            return Ok(()); // Invisible; the command will find nothing there.
        }
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        if let Some(ext) = &ext {
            if policy.denied_extensions.iter().any(|d| d == ext) {
                return Err(format!(
                    "{}: files ending in .{ext} are denied in {}",
                    path.display(),
                    policy.path.display()
                ));
            }
        }
        if !policy.allowed_extensions.is_empty()
            && !ext
                .as_ref()
                .is_some_and(|e| policy.allowed_extensions.contains(e))
        {
            return Err(format!(
                "{}: only {} files are allowed in {}",
                path.display(),
                policy.allowed_extensions.join(", "),
                policy.path.display()
            ));
        }
        if let Ok(meta) = std::fs::metadata(path) {
            if meta.is_file() && meta.len() > policy.max_file_size {
                return Err(format!(
                    "{} is {} bytes, over the {} bytes allowed in {}",
                    path.display(),
                    meta.len(),
                    policy.max_file_size,
                    policy.path.display()
                ));
            }
        }
        Ok(())
    }
}

/// `path` with `.` and `..` resolved lexically (symlinks are not followed: bwrap binds the path
/// as named). `None` if `..` climbs above the root.
pub fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::from("/");
    for c in path.components() {
        match c {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(n) => out.push(n),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policies(yaml: &str) -> Result<Policies, String> {
        let raw: PolicyFile = serde_yaml_ng::from_str(yaml).map_err(|e| e.to_string())?;
        Policies::from_file(raw, Path::new("/town"))
    }

    #[test]
    fn most_specific_path_wins() {
        let p = policies(
            "allow_commands: [ls]\nfolders:\n  - {path: work, access: ReadWrite}\n  - {path: work/private, access: Deny}\n  - {path: /srv/data, access: read_only, network: Allow, outside_town: true}\n",
        )
        .unwrap();
        let g = |s: &str| p.governing(Path::new(s)).map(|f| f.access);
        assert_eq!(g("/town/work/a.txt"), Some(Access::ReadWrite));
        assert_eq!(g("/town/work/private/key"), Some(Access::Deny));
        assert_eq!(
            g("/town/workshop"),
            None,
            "a prefix of a name is not a parent"
        );
        assert_eq!(g("/srv/data/x"), Some(Access::ReadOnly));
        assert!(!p.visible(Path::new("/town/keys/owner.nsec")));
    }

    #[test]
    fn bad_files_name_the_field() {
        let e = policies("allow_commands: [/bin/sh]\nfolders: []\n").unwrap_err();
        assert!(e.contains("allow_commands"), "{e}");
        let e = policies("allow_commands: []\nfolders:\n  - {path: ../../.., access: Deny}\n")
            .unwrap_err();
        assert!(e.contains("folders[0].path"), "{e}");
        let e = policies("allow_commands: []\nfolders:\n  - {path: a, access: Sometimes}\n")
            .unwrap_err();
        assert!(e.contains("Sometimes") || e.contains("variant"), "{e}");
    }

    #[test]
    fn the_town_and_its_control_files_are_never_policy_folders() {
        for (path, why) in [
            (".", "holds it"),
            ("..", "whole file system"),
            ("/", "whole file system"),
            ("keys", "own files"),
            ("skills", "own files"),
            ("skills/x", "own files"),
            ("rules", "own files"),
            ("relay", "own files"),
            ("town.toml", "own files"),
            ("karma.sqlite-wal", "own files"),
            ("work/../keys", "own files"),
            ("/etc", "outside_town: true"),
        ] {
            let e = policies(&format!(
                "allow_commands: []\nfolders:\n  - {{path: '{path}', access: ReadOnly}}\n"
            ))
            .unwrap_err();
            assert!(
                e.contains("folders[0].path") && e.contains(why),
                "{path}: {e}"
            );
        }
        assert!(policies("allow_commands: []\nfolders:\n  - {path: /srv, access: ReadOnly, outside_town: true}\n").is_ok());
        assert!(
            policies("allow_commands: []\nfolders:\n  - {path: keysmith, access: ReadOnly}\n")
                .is_ok()
        );
    }

    #[test]
    fn extensions_and_sizes() {
        let p = policies(
            "allow_commands: []\nfolders:\n  - {path: /tmp, access: ReadWrite, denied_extensions: [.EXE], max_file_size: 1, outside_town: true}\n  - {path: /tmp/docs, access: ReadOnly, allowed_extensions: [md], outside_town: true}\n",
        )
        .unwrap();
        assert!(p.check_file(Path::new("/tmp/x.exe")).is_err());
        assert!(p.check_file(Path::new("/tmp/docs/a.md")).is_ok());
        assert!(p.check_file(Path::new("/tmp/docs/a.txt")).is_err());
        let dir = tempfile::tempdir_in("/tmp").unwrap();
        let big = dir.path().join("big.txt");
        std::fs::write(&big, "12345").unwrap();
        assert!(p.check_file(&big).unwrap_err().contains("over the 1 bytes"));
    }
}
