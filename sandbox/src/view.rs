//! What one run sees: its working folder and the folders its skill declares, each with the
//! stricter of the policy's and the declaration's access, plus the policies nested inside them.
//! Nothing else of the policies is mounted, so a run in `downloads` cannot reach `workspace`.
//!
//! Deny folders inside a mounted folder are covered by an empty read-only tmpfs, and created
//! first when missing (a run could otherwise create one and write there). Existing files with a
//! denied extension are covered by `/dev/null`; new ones a run leaves behind are removed by
//! [`View::quarantine`] and reported. The checks work on what is mounted, not on path strings: a
//! path through `/proc/self/cwd`, `..` or a symlink inside the sandbox resolves inside it, where
//! nothing unmounted exists.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::policy::{normalize, Access, FolderPolicy, Network, Policies};

/// At most this many entries are looked at per run when searching for denied extensions; a
/// folder holding more is refused rather than partly checked.
const WALK_LIMIT: usize = 20_000;

/// A folder a skill declares, absolute.
#[derive(Debug, Clone, PartialEq)]
pub struct Declared {
    /// The folder (absolute, normalized).
    pub path: PathBuf,
    /// The access the skill asks for.
    pub access: Access,
}

/// One mount of a run, in the order bubblewrap applies them.
#[derive(Debug, Clone, PartialEq)]
pub enum Mount {
    /// A host folder at its own path.
    Bind {
        /// The folder.
        path: PathBuf,
        /// Writable.
        write: bool,
        /// Files inside may be executed (otherwise the mount is remounted `noexec`).
        exec: bool,
    },
    /// A folder covered by an empty read-only tmpfs.
    HideDir(PathBuf),
    /// A file covered by `/dev/null`.
    HideFile(PathBuf),
}

/// Everything one run sees.
#[derive(Debug, Clone)]
pub struct View {
    /// Mounts, least specific first.
    pub mounts: Vec<Mount>,
    /// The strictest `max_file_size` of the writable folders (RLIMIT_FSIZE of the run).
    pub max_file_size: u64,
    /// The working folder's network policy.
    pub network: Network,
    /// Extensions denied in any mounted folder (refused in arguments).
    pub denied_extensions: BTreeSet<String>,
    policies: Vec<FolderPolicy>,
}

impl View {
    /// The view of a run in `workdir` with `declared` folders, or why there is none.
    pub fn plan(
        policies: &Policies,
        workdir: &Path,
        declared: &[Declared],
    ) -> Result<Self, String> {
        let work = visible(policies, workdir, "the working folder")?;
        let mut roots = vec![(workdir.to_path_buf(), work.access)];
        for d in declared {
            let p = visible(policies, &d.path, "a folder the skill declares")?;
            roots.push((d.path.clone(), stricter(p.access, d.access)));
        }
        let mut mounts: Vec<Mount> = Vec::new();
        for (root, access) in &roots {
            if !root.exists() {
                return Err(format!(
                    "{} does not exist: create it, or change the skill's folders",
                    root.display()
                ));
            }
            no_symlink(root)?;
            mounts.push(Mount::Bind {
                path: root.clone(),
                write: *access == Access::ReadWrite,
                exec: policies.governing(root).is_some_and(|p| p.execute),
            });
            for inner in policies
                .folders
                .iter()
                .filter(|f| f.path.starts_with(root) && f.path != *root)
            {
                if inner.access == Access::Deny {
                    if !inner.path.exists() {
                        // Covered before it exists: created empty so the tmpfs has a place.
                        std::fs::create_dir_all(&inner.path).map_err(|e| {
                            format!(
                                "cannot create the Deny folder {} to cover it: {e}",
                                inner.path.display()
                            )
                        })?;
                    }
                    mounts.push(if inner.path.is_dir() {
                        Mount::HideDir(inner.path.clone())
                    } else {
                        Mount::HideFile(inner.path.clone())
                    });
                } else if inner.path.is_dir() {
                    no_symlink(&inner.path)?;
                    mounts.push(Mount::Bind {
                        path: inner.path.clone(),
                        write: *access == Access::ReadWrite && inner.access == Access::ReadWrite,
                        exec: inner.execute,
                    });
                }
            }
        }
        mounts.sort_by_key(depth);
        mounts.dedup();
        let mut view = Self {
            mounts,
            max_file_size: work.max_file_size,
            network: work.network,
            denied_extensions: BTreeSet::new(),
            policies: policies.folders.clone(),
        };
        let writable: Vec<u64> = view
            .binds()
            .filter(|(_, w, _)| *w)
            .filter_map(|(p, _, _)| view.governing(p).map(|g| g.max_file_size))
            .collect();
        if let Some(min) = writable.into_iter().min() {
            view.max_file_size = min;
        }
        view.denied_extensions = view
            .binds()
            .filter_map(|(p, _, _)| view.governing(p))
            .flat_map(|g| g.denied_extensions.iter().cloned())
            .collect();
        for file in view.denied_files()? {
            view.mounts.push(Mount::HideFile(file));
        }
        Ok(view)
    }

    /// The bind mounts: path, writable, executable.
    pub fn binds(&self) -> impl Iterator<Item = (&Path, bool, bool)> {
        self.mounts.iter().filter_map(|m| match m {
            Mount::Bind { path, write, exec } => Some((path.as_path(), *write, *exec)),
            _ => None,
        })
    }

    /// Whether `path` (absolute, normalized) is inside a mount from which files may be run.
    pub fn executable(&self, path: &Path) -> bool {
        let mut best: Option<(&Path, bool)> = None;
        for m in &self.mounts {
            let (p, exec) = match m {
                Mount::Bind { path, exec, .. } => (path.as_path(), *exec),
                Mount::HideDir(p) | Mount::HideFile(p) => (p.as_path(), false),
            };
            if path.starts_with(p) && best.is_none_or(|(b, _)| p.starts_with(b)) {
                best = Some((p, exec));
            }
        }
        best.is_some_and(|(_, e)| e)
    }

    /// Files with a denied extension in writable folders that were not there (and covered) when
    /// the run started: removed, and returned so the run's reply can say so.
    pub fn quarantine(&self) -> Vec<PathBuf> {
        let before: BTreeSet<&PathBuf> = self
            .mounts
            .iter()
            .filter_map(|m| match m {
                Mount::HideFile(p) => Some(p),
                _ => None,
            })
            .collect();
        let mut removed = Vec::new();
        let writable: Vec<PathBuf> = self
            .binds()
            .filter(|(_, w, _)| *w)
            .map(|(p, _, _)| p.to_path_buf())
            .collect();
        for root in writable {
            let mut seen = 0;
            for file in self.walk(&root, &mut seen) {
                if !before.contains(&file) && self.denied(&file) {
                    match std::fs::remove_file(&file) {
                        Ok(()) => removed.push(file),
                        Err(e) => {
                            tracing::warn!(file = %file.display(), "cannot remove a file with a denied extension: {e}")
                        }
                    }
                }
            }
        }
        removed
    }

    fn governing(&self, path: &Path) -> Option<&FolderPolicy> {
        self.policies.iter().find(|f| path.starts_with(&f.path))
    }

    /// Whether `file`'s extension is denied by the policy that governs it.
    fn denied(&self, file: &Path) -> bool {
        let Some(ext) = file.extension() else {
            return false;
        };
        let ext = ext.to_string_lossy().to_ascii_lowercase();
        self.governing(file)
            .is_some_and(|g| g.access != Access::Deny && g.denied_extensions.contains(&ext))
    }

    fn denied_files(&self) -> Result<Vec<PathBuf>, String> {
        let mut out = Vec::new();
        let roots: Vec<PathBuf> = self.binds().map(|(p, _, _)| p.to_path_buf()).collect();
        for root in roots {
            let mut seen = 0;
            out.extend(self.walk(&root, &mut seen).filter(|f| self.denied(f)));
            if seen >= WALK_LIMIT {
                return Err(format!(
                    "{} holds more than {WALK_LIMIT} entries, too many to check for denied extensions: make it smaller or split it",
                    root.display()
                ));
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// Regular files under `root`, not following symlinks, not entering Deny folders.
    fn walk<'a>(&'a self, root: &Path, seen: &'a mut usize) -> impl Iterator<Item = PathBuf> + 'a {
        let mut stack = vec![root.to_path_buf()];
        let mut files = Vec::new();
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                *seen += 1;
                if *seen >= WALK_LIMIT {
                    return files.into_iter();
                }
                let path = entry.path();
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let hidden = self
                    .governing(&path)
                    .is_none_or(|g| g.access == Access::Deny);
                if kind.is_dir() && !hidden {
                    stack.push(path);
                } else if kind.is_file() {
                    files.push(path);
                }
            }
        }
        files.into_iter()
    }
}

/// The policy making `path` visible, or why none does.
fn visible<'a>(
    policies: &'a Policies,
    path: &Path,
    what: &str,
) -> Result<&'a FolderPolicy, String> {
    let normal =
        normalize(path).ok_or_else(|| format!("{what} {} climbs above /", path.display()))?;
    policies
        .governing(&normal)
        .filter(|p| p.access != Access::Deny)
        .ok_or_else(|| {
            format!(
                "no folder policy makes {what} {} visible: add it to skills/_policy.yaml or change the skill",
                path.display()
            )
        })
}

/// Refuses a folder reached through a symlink: bubblewrap would mount the target, which the
/// policy never named (a `workspace` linked to the town's root would show `keys/`).
fn no_symlink(path: &Path) -> Result<(), String> {
    let real = std::fs::canonicalize(path)
        .map_err(|e| format!("cannot resolve {}: {e}", path.display()))?;
    if real != path {
        return Err(format!(
            "{} is reached through a symlink (to {}): name the real folder in skills/_policy.yaml",
            path.display(),
            real.display()
        ));
    }
    Ok(())
}

fn stricter(a: Access, b: Access) -> Access {
    match (a, b) {
        (Access::Deny, _) | (_, Access::Deny) => Access::Deny,
        (Access::ReadOnly, _) | (_, Access::ReadOnly) => Access::ReadOnly,
        _ => Access::ReadWrite,
    }
}

fn depth(m: &Mount) -> usize {
    match m {
        Mount::Bind { path, .. } | Mount::HideDir(path) | Mount::HideFile(path) => {
            path.components().count()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::PolicyFile;

    fn setup(yaml: &str) -> (tempfile::TempDir, PathBuf, Policies) {
        let tmp = tempfile::tempdir().unwrap();
        let town = std::fs::canonicalize(tmp.path()).unwrap();
        for d in ["ws", "dl", "docs"] {
            std::fs::create_dir_all(town.join(d)).unwrap();
        }
        let raw: PolicyFile = serde_yaml_ng::from_str(yaml).unwrap();
        let p = Policies::from_file(raw, &town).unwrap();
        (tmp, town, p)
    }

    const POLICY: &str = "allow_commands: [ls]\nfolders:\n  - {path: ws, access: ReadWrite, denied_extensions: [nsec], max_file_size: 100}\n  - {path: ws/private, access: Deny}\n  - {path: dl, access: ReadWrite, network: Allow, max_file_size: 1000}\n  - {path: docs, access: ReadOnly}\n";

    #[test]
    fn only_the_working_folder_and_declared_folders_are_mounted() {
        let (_t, town, p) = setup(POLICY);
        let v = View::plan(&p, &town.join("dl"), &[]).unwrap();
        let paths: Vec<&Path> = v.binds().map(|(p, _, _)| p).collect();
        assert_eq!(paths, vec![town.join("dl").as_path()], "{:?}", v.mounts);
        assert_eq!(v.max_file_size, 1000);
        let v = View::plan(
            &p,
            &town.join("dl"),
            &[Declared {
                path: town.join("ws"),
                access: Access::ReadWrite,
            }],
        )
        .unwrap();
        assert_eq!(v.max_file_size, 100, "the strictest writable folder");
        assert!(
            town.join("ws/private").is_dir(),
            "a Deny folder is created so that it can be covered"
        );
        assert!(v.mounts.contains(&Mount::HideDir(town.join("ws/private"))));
        let docs = View::plan(
            &p,
            &town.join("dl"),
            &[Declared {
                path: town.join("docs"),
                access: Access::ReadWrite,
            }],
        )
        .unwrap();
        assert!(
            docs.binds().any(|(p, w, _)| p == town.join("docs") && !w),
            "a ReadOnly policy wins over a ReadWrite declaration"
        );
        let e = View::plan(
            &p,
            &town.join("dl"),
            &[Declared {
                path: town.join("ws/private"),
                access: Access::ReadOnly,
            }],
        )
        .unwrap_err();
        assert!(e.contains("no folder policy"), "{e}");
    }

    #[test]
    fn denied_files_are_covered_and_new_ones_removed() {
        let (_t, town, p) = setup(POLICY);
        std::fs::write(town.join("ws/old.nsec"), "x").unwrap();
        let v = View::plan(&p, &town.join("ws"), &[]).unwrap();
        assert!(v
            .mounts
            .contains(&Mount::HideFile(town.join("ws/old.nsec"))));
        std::fs::write(town.join("ws/new.NSEC"), "x").unwrap();
        std::fs::write(town.join("ws/fine.txt"), "x").unwrap();
        assert_eq!(v.quarantine(), vec![town.join("ws/new.NSEC")]);
        assert!(town.join("ws/old.nsec").exists() && town.join("ws/fine.txt").exists());
    }

    #[test]
    fn a_symlinked_folder_is_refused() {
        let (_t, town, p) = setup(POLICY);
        std::fs::remove_dir(town.join("docs")).unwrap();
        std::os::unix::fs::symlink(&town, town.join("docs")).unwrap();
        let e = View::plan(
            &p,
            &town.join("ws"),
            &[Declared {
                path: town.join("docs"),
                access: Access::ReadOnly,
            }],
        )
        .unwrap_err();
        assert!(e.contains("symlink"), "{e}");
    }
}
