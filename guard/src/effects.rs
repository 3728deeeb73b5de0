//! What a call would do, weighed from its values by fixed code rather than from the tool's
//! name (issue 20: `fetch out=../workspace/notes.txt` overwrote a file in another folder and
//! passed as a plain fetch).
//!
//! The caller knows the town (where the skill runs, which files exist) and hands the guardian
//! [`Facts`]: the skill's declared risk, the action it performs, and the [`Effect`]s that
//! [`weigh`] finds in the call's values. Weighing is pure: the file system is asked only
//! through the `exists` function the caller passes.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use super::rules::Risk;

/// Something a call would do that its tool's name does not say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// A value that is a path resolves outside the skill's working folder.
    Outside {
        /// The parameter (`out`, `args[0]`).
        param: String,
        /// Where it resolves (private: only in the detail).
        resolved: String,
    },
    /// A parameter the command writes to names a file that exists: it would be overwritten.
    Overwrites {
        /// The parameter.
        param: String,
        /// The file (private).
        resolved: String,
    },
    /// The command deletes what a parameter names.
    Deletes {
        /// The parameter.
        param: String,
    },
    /// A value is a URL: the call reaches a host outside the town.
    Reaches {
        /// The parameter.
        param: String,
        /// The host (private: it may say whom the owner deals with).
        host: String,
    },
}

impl Effect {
    /// The band this effect alone puts the call in.
    pub fn risk(&self) -> Risk {
        match self {
            Effect::Deletes { .. } => Risk::High,
            Effect::Outside { .. } | Effect::Overwrites { .. } | Effect::Reaches { .. } => {
                Risk::Medium
            }
        }
    }

    /// What it does, without any value (for the public verdict).
    pub fn public(&self) -> String {
        match self {
            Effect::Outside { param, .. } => format!("{param} points outside the skill's folder"),
            Effect::Overwrites { param, .. } => format!("{param} would overwrite an existing file"),
            Effect::Deletes { param } => format!("it deletes what {param} names"),
            Effect::Reaches { param, .. } => format!("{param} reaches a host outside the town"),
        }
    }

    /// The values behind it (for the audit row and the owner's question).
    pub fn private(&self) -> String {
        match self {
            Effect::Outside { param, resolved } => format!("{param} resolves to {resolved}"),
            Effect::Overwrites { param, resolved } => format!("{param} overwrites {resolved}"),
            Effect::Deletes { param } => format!("{param} is deleted"),
            Effect::Reaches { param, host } => format!("{param} reaches {host}"),
        }
    }
}

/// What the caller knows about a call beyond the mind's proposal.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    /// The risk the skill declares (or the default chosen for it).
    pub risk: Option<Risk>,
    /// The action of `rules/authorization.yaml` the skill performs, when it declares one.
    pub performs: Option<String>,
    /// What the call's values would do.
    pub effects: Vec<Effect>,
}

/// Programs that delete what their arguments name.
const DELETERS: &[&str] = &["rm", "rmdir", "unlink", "shred", "truncate"];
/// Options after which a command writes to the next argument.
const OUTPUT_FLAGS: &[&str] = &["-o", "-O", "--output", "--output-document", "-w", "--out"];
/// Parameter names that are written to by convention.
const OUTPUT_NAMES: &[&str] = &["out", "output", "dest", "destination", "target", "to"];

/// The parameters a command template writes to or deletes: (writes, deletes).
fn roles_in(template: &str) -> (Vec<String>, Vec<String>) {
    let words: Vec<&str> = template.split_whitespace().collect();
    let program = words.first().copied().unwrap_or("");
    let var = |w: &str| -> Option<String> {
        let start = w.find("{{")? + 2;
        let end = w[start..].find("}}")? + start;
        Some(w[start..end].trim().to_owned())
    };
    let mut writes = Vec::new();
    for pair in words.windows(2) {
        if OUTPUT_FLAGS.contains(&pair[0]) {
            writes.extend(var(pair[1]));
        }
    }
    // `cp a b`, `mv a b`, `tee f`: the last argument is written.
    if ["cp", "mv", "tee", "touch", "mkdir"].contains(&program) {
        writes.extend(words.last().and_then(|w| var(w)));
    }
    let deletes = if DELETERS.contains(&program) || program == "mv" {
        words.iter().skip(1).filter_map(|w| var(w)).collect()
    } else {
        Vec::new()
    };
    (writes, deletes)
}

/// Lexically resolves `value` against `workdir` (no file system: a symlink is the sandbox's
/// business; here `..` and absolute paths are what counts).
fn resolve(workdir: &Path, value: &str) -> PathBuf {
    let mut out = PathBuf::new();
    let joined = if value.starts_with('~') {
        // The shell's home: never inside a skill's folder.
        PathBuf::from("/home").join(value.trim_start_matches('~').trim_start_matches('/'))
    } else {
        workdir.join(value)
    };
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn looks_like_path(name: &str, value: &str, writes: &[String]) -> bool {
    value.contains('/')
        || value.starts_with('.')
        || value.starts_with('~')
        || writes.iter().any(|w| w == name)
        || ["file", "path", "dir", "folder"]
            .iter()
            .any(|k| name.contains(k))
}

fn host_of(value: &str) -> Option<String> {
    let (scheme, rest) = value.split_once("://")?;
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '+')
    {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or("");
    Some(host.to_owned())
}

/// The effects of running `template` in `workdir` with these values. `networked` says whether
/// the run can reach the network at all (a URL in a run without it reaches nothing: the
/// sandbox has no network to give). `exists` says whether a resolved path exists now.
pub fn weigh(
    template: Option<&str>,
    workdir: &Path,
    named: &BTreeMap<String, String>,
    positional: &[String],
    networked: bool,
    exists: impl Fn(&Path) -> bool,
) -> Vec<Effect> {
    let (mut writes, deletes) = template.map(roles_in).unwrap_or_default();
    writes.extend(
        named
            .keys()
            .filter(|k| OUTPUT_NAMES.contains(&k.as_str()))
            .cloned(),
    );
    let values = named.iter().map(|(k, v)| (k.clone(), v.as_str())).chain(
        positional
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("args[{i}]"), v.as_str())),
    );
    let mut effects = Vec::new();
    for (param, value) in values {
        if let Some(host) = host_of(value) {
            if networked {
                effects.push(Effect::Reaches { param, host });
            }
            continue;
        }
        if deletes.contains(&param) {
            effects.push(Effect::Deletes {
                param: param.clone(),
            });
        }
        if !looks_like_path(&param, value, &writes) {
            continue;
        }
        let resolved = resolve(workdir, value);
        if !resolved.starts_with(workdir) {
            effects.push(Effect::Outside {
                param: param.clone(),
                resolved: resolved.display().to_string(),
            });
        }
        if writes.contains(&param) && exists(&resolved) {
            effects.push(Effect::Overwrites {
                param,
                resolved: resolved.display().to_string(),
            });
        }
    }
    effects
}
