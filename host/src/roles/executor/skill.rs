//! Skills (seed 004, DESIGN §8): YAML files in the town's `skills/`, validated before use.
//!
//! ```yaml
//! name: checksum                 # [a-z0-9_-], the file's stem
//! description: SHA-256 of a file in the workspace.
//! version: "1.0"
//! workdir: workspace             # the folder it runs in (default `workspace`)
//! folders:                       # other folders the run sees (default none), relative to the town
//!   - {path: bulletin, access: ReadOnly}
//! parameters:
//!   - {name: file, type: string, required: true, description: the file}
//! command: sha256sum {{file}}    # or `prompt:` for a model
//! network: [example.com, "api.example.com:8443"]  # hosts it may reach; none: no network
//! risk: none                     # none | medium | high | critical (the guardian's band)
//! performs: delete_files         # optional: the rules/authorization.yaml action it performs
//! ```
//! A command is split at whitespace into the program and its arguments first, and `{{var}}` is
//! substituted inside each argument afterwards, so a value never becomes two arguments and is
//! never read by a shell. The program itself cannot be a variable. Substitution is one pass: a
//! value is copied as it is, so a value holding `{{other}}` stays that text.
//!
//! A value that would start an argument with `-` is refused (it would be read as an option, as
//! `url=-K/tmp/x` would by curl), except after a literal `--` in the command, where the program
//! takes everything as an operand (write `--` only for programs that honour it).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use soul_sandbox::Access;

/// A parameter's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamType {
    /// Any text without whitespace at its ends.
    String,
    /// A whole number.
    Integer,
    /// A number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// An `http://` or `https://` URL with a host and no user name or password in it.
    Url,
}

/// One parameter.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Param {
    /// Its name, used as `{{name}}` and `name=value`.
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: ParamType,
    /// Whether it must be given (unless it has a default).
    #[serde(default)]
    pub required: bool,
    /// The value when not given.
    #[serde(default)]
    pub default: Option<serde_yaml_ng::Value>,
    /// The only values allowed, if any.
    #[serde(default, rename = "enum")]
    pub choices: Vec<serde_yaml_ng::Value>,
    /// What it is.
    #[serde(default)]
    pub description: String,
}

/// A skill file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Skill {
    /// Its name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Phrases that ask for it in a plain task ("count the lines", "行数"), so the built-in
    /// mind can map a task onto it without the skill's name.
    #[serde(default)]
    pub intents: Vec<String>,
    /// Its version.
    #[serde(default)]
    pub version: Option<String>,
    /// The folder it runs in, relative to the town (default `workspace`).
    #[serde(default = "default_workdir")]
    pub workdir: String,
    /// Folders besides the working folder that the run sees, each with the access it needs
    /// (the folder policy may make it stricter, never looser).
    #[serde(default)]
    pub folders: Vec<SkillFolder>,
    /// Its parameters.
    #[serde(default)]
    pub parameters: Vec<Param>,
    /// The command, with `{{var}}`.
    #[serde(default)]
    pub command: Option<String>,
    /// Or a prompt for a model, with `{{var}}`.
    #[serde(default)]
    pub prompt: Option<String>,
    /// Hosts the run may reach through soul's egress proxy (`host[:port]`; without a port,
    /// 443 and 80), checked entry by entry as the file is read. None: no network at all.
    #[serde(default)]
    pub network: soul_sandbox::Allowlist,
    /// How risky a run is: `none`, `medium` (the owner's yes), `high` (two yeses), `critical`
    /// (never run). Absent: see [`Skill::risk_for`].
    #[serde(default)]
    pub risk: Option<soul_guard::Risk>,
    /// The action of `rules/authorization.yaml` a run performs (e.g. `delete_files`), if more
    /// than `run_skill`: the gate checks its level too, and the guardian its band.
    #[serde(default)]
    pub performs: Option<String>,
}

/// A folder a skill declares: mounted in its runs with at most `access`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillFolder {
    /// Relative to the town, without `..`.
    pub path: String,
    /// ReadOnly or ReadWrite (Deny would declare nothing).
    pub access: Access,
}

fn default_workdir() -> String {
    "workspace".into()
}

/// Reads every `skills/*.yaml` but `_*.yaml`; each file's error names the file and field.
pub fn load_all(dir: &Path) -> Result<BTreeMap<String, Skill>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut out = BTreeMap::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_none_or(|e| e != "yaml") || stem.starts_with('_') {
            continue;
        }
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let skill: Skill =
            serde_yaml_ng::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        skill
            .validate(stem)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        out.insert(skill.name.clone(), skill);
    }
    Ok(out)
}

impl Skill {
    /// Checks the rules of the module docs; `stem` is the file's name without `.yaml`.
    pub fn validate(&self, stem: &str) -> Result<(), String> {
        let ok_name = |n: &str| {
            !n.is_empty()
                && n.len() <= 64
                && n.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
        };
        if !ok_name(&self.name) {
            return Err(format!("name {:?}: use 1-64 of a-z 0-9 _ -", self.name));
        }
        if self.name != stem {
            return Err(format!(
                "name {:?} must match the file name {stem:?}",
                self.name
            ));
        }
        if self.description.trim().is_empty() {
            return Err("description: must not be empty".into());
        }
        let template = match (&self.command, &self.prompt) {
            (Some(c), None) => {
                let program = c.split_whitespace().next().unwrap_or("");
                if program.is_empty() || program.contains("{{") {
                    return Err(format!(
                        "command {c:?}: the program must be written out, not a variable"
                    ));
                }
                c
            }
            (None, Some(p)) => p,
            _ => return Err("give exactly one of `command` and `prompt`".into()),
        };
        for (what, path) in std::iter::once(("workdir".to_string(), &self.workdir)).chain(
            self.folders
                .iter()
                .enumerate()
                .map(|(i, f)| (format!("folders[{i}].path"), &f.path)),
        ) {
            let p = Path::new(path);
            if path.is_empty()
                || p.is_absolute()
                || p.components()
                    .any(|c| !matches!(c, std::path::Component::Normal(_)))
            {
                return Err(format!(
                    "{what} {path:?}: name a folder inside the town, such as `workspace` (no `/` at the start, no `.` or `..`)"
                ));
            }
        }
        if let Some(i) = self.folders.iter().position(|f| f.access == Access::Deny) {
            return Err(format!(
                "folders[{i}].access: Deny declares nothing; leave the folder out"
            ));
        }
        for (i, p) in self.parameters.iter().enumerate() {
            if !ok_name(&p.name) {
                return Err(format!(
                    "parameters[{i}].name {:?}: use a-z 0-9 _ -",
                    p.name
                ));
            }
            if self.parameters[..i].iter().any(|q| q.name == p.name) {
                return Err(format!("parameters[{i}].name {:?} is listed twice", p.name));
            }
            for c in &p.choices {
                check_type(p, &yaml_text(c)).map_err(|e| format!("parameters[{i}].enum: {e}"))?;
            }
            if let Some(d) = &p.default {
                let d = yaml_text(d);
                check_value(p, &d).map_err(|e| format!("parameters[{i}].default: {e}"))?;
            }
        }
        if let Some(a) = &self.performs {
            if a.is_empty() || !a.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                return Err(format!(
                    "performs {a:?}: name an action of rules/authorization.yaml (a-z and _), e.g. delete_files"
                ));
            }
        }
        for var in variables(template) {
            if !self.parameters.iter().any(|p| p.name == var) {
                return Err(format!(
                    "{{{{{var}}}}} is used but not among the parameters"
                ));
            }
        }
        Ok(())
    }

    /// The risk the guardian weighs for a run: the declared one; without a declaration,
    /// `medium` when the run can reach the network (its folder's policy allows it), else
    /// `none`. A skill that writes outside its folder or overwrites is weighed per call by the
    /// guardian whatever its risk, so the default need not guess at that.
    pub fn risk_for(&self, networked: bool) -> soul_guard::Risk {
        match self.risk {
            Some(r) => r,
            // A run that reaches the network asks the owner unless its skill says otherwise.
            None if networked => soul_guard::Risk::Medium,
            None => soul_guard::Risk::None,
        }
    }

    /// `named` with the `positional` values bound to the parameters they fill, in order, as
    /// [`Skill::argv`] binds them (defaults are not added: the caller did not choose them).
    pub fn bind(
        &self,
        named: &BTreeMap<String, String>,
        positional: &[String],
    ) -> BTreeMap<String, String> {
        let mut out = named.clone();
        let mut rest = positional.iter();
        for p in &self.parameters {
            if !named.contains_key(&p.name) {
                if let Some(v) = rest.next() {
                    out.insert(p.name.clone(), v.clone());
                }
            }
        }
        out
    }

    /// The argument vector for `named` and `positional` arguments: types, enums, required
    /// parameters and defaults checked. `Err` says which argument and why.
    pub fn argv(
        &self,
        named: &BTreeMap<String, String>,
        positional: &[String],
    ) -> Result<Vec<String>, String> {
        let command = self
            .command
            .as_ref()
            .ok_or_else(|| format!("{} is a prompt skill: it needs a model (`soul up --llm URL`), and this executor runs commands only", self.name))?;
        if let Some(k) = named
            .keys()
            .find(|k| !self.parameters.iter().any(|p| &p.name == *k))
        {
            return Err(format!("{}: no parameter {k:?}", self.name));
        }
        let mut rest = positional.iter();
        let mut values = BTreeMap::new();
        for p in &self.parameters {
            let v = match named.get(&p.name) {
                Some(v) => Some(v.clone()),
                None => rest.next().cloned(),
            };
            let v = match (v, &p.default) {
                (Some(v), _) => v,
                (None, Some(d)) => yaml_text(d),
                (None, None) if p.required => {
                    return Err(format!(
                        "{}: {} is required ({})",
                        self.name, p.name, p.description
                    ))
                }
                (None, None) => String::new(),
            };
            check_value(p, &v).map_err(|e| format!("{}: {e}", self.name))?;
            values.insert(p.name.clone(), v);
        }
        if let Some(extra) = rest.next() {
            return Err(format!("{}: unexpected argument {extra:?}", self.name));
        }
        let mut argv = Vec::new();
        let mut operands_only = false;
        for word in command.split_whitespace() {
            let arg = substitute(word, &values);
            if arg.starts_with('-') && !word.starts_with('-') && !operands_only {
                return Err(format!(
                    "{}: the value {arg:?} starts with `-`, so {} would read it as an option; give a value that does not start with `-` (a file `-x` can be named `./-x`)",
                    self.name,
                    command.split_whitespace().next().unwrap_or("the program")
                ));
            }
            operands_only |= word == "--";
            // An optional parameter left empty drops an argument that was only that variable.
            if !(arg.is_empty() && word.starts_with("{{")) {
                argv.push(arg);
            }
        }
        Ok(argv)
    }
}

/// `word` with each `{{name}}` replaced by its value in one left-to-right pass: text that comes
/// from a value is never looked at again.
fn substitute(word: &str, values: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = word;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        out.push_str(&rest[..start]);
        match values.get(after[..end].trim()) {
            Some(v) => out.push_str(v),
            None => out.push_str(&rest[start..start + 2 + end + 2]),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// Whether `v` is an `http(s)://host[:port][/…]` URL: no other scheme (`file://` reads the
/// sandbox's own files), no user info (`http://good@evil`), no spaces or control characters.
fn is_web_url(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    let Some(rest) = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))
    else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || authority.starts_with('[') => (h, Some(p)),
        _ => (authority, None),
    };
    let host_ok = !host.is_empty()
        && (host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
            && !host.starts_with('-')
            || host.starts_with('[')
                && host.ends_with(']')
                && host[1..host.len() - 1]
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.'));
    let port_ok =
        port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.chars().all(|c| c.is_ascii_digit()));
    host_ok && port_ok && v.chars().all(|c| c.is_ascii_graphic())
}

fn check_value(p: &Param, v: &str) -> Result<(), String> {
    if v.is_empty() && !p.required {
        return Ok(());
    }
    check_type(p, v)?;
    if !p.choices.is_empty() && !p.choices.iter().any(|c| yaml_text(c) == v) {
        let choices: Vec<String> = p.choices.iter().map(yaml_text).collect();
        return Err(format!(
            "{}={v:?} is not one of {}",
            p.name,
            choices.join(", ")
        ));
    }
    Ok(())
}

fn check_type(p: &Param, v: &str) -> Result<(), String> {
    let ok = match p.kind {
        ParamType::String => !v.is_empty() && v.trim() == v && !v.contains('\0'),
        ParamType::Integer => v.parse::<i64>().is_ok(),
        ParamType::Number => v.parse::<f64>().is_ok_and(f64::is_finite),
        ParamType::Boolean => v == "true" || v == "false",
        ParamType::Url => is_web_url(v),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{}={v:?} is not a {:?}", p.name, p.kind).to_lowercase())
    }
}

fn yaml_text(v: &serde_yaml_ng::Value) -> String {
    match v {
        serde_yaml_ng::Value::String(s) => s.clone(),
        serde_yaml_ng::Value::Number(n) => n.to_string(),
        serde_yaml_ng::Value::Bool(b) => b.to_string(),
        other => serde_yaml_ng::to_string(other)
            .unwrap_or_default()
            .trim()
            .to_string(),
    }
}

/// The `{{var}}` names in `template`.
fn variables(template: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        out.push(after[..end].trim().to_string());
        rest = &after[end + 2..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(yaml: &str) -> Skill {
        serde_yaml_ng::from_str(yaml).unwrap()
    }

    const HEAD: &str = "name: head\ndescription: the start of a file\nversion: '1.0'\nparameters:\n  - {name: file, type: string, required: true}\n  - {name: lines, type: integer, default: 10, enum: [10, 20]}\ncommand: head -n {{lines}} {{file}}\n";

    #[test]
    fn arguments_are_checked_and_never_split() {
        let s = skill(HEAD);
        s.validate("head").unwrap();
        let named = BTreeMap::from([("file".to_string(), "a b.txt".to_string())]);
        assert_eq!(
            s.argv(&named, &[]).unwrap(),
            vec!["head", "-n", "10", "a b.txt"]
        );
        let argv = s
            .argv(&BTreeMap::new(), &["x.txt".into(), "20".into()])
            .unwrap();
        assert_eq!(argv, vec!["head", "-n", "20", "x.txt"]);
        assert!(s
            .argv(&BTreeMap::new(), &[])
            .unwrap_err()
            .contains("file is required"));
        assert!(s
            .argv(&BTreeMap::new(), &["x".into(), "15".into()])
            .unwrap_err()
            .contains("not one of"));
        assert!(s
            .argv(&BTreeMap::new(), &["x".into(), "ten".into()])
            .unwrap_err()
            .contains("integer"));
        let bad = BTreeMap::from([("shell".to_string(), "1".to_string())]);
        assert!(s
            .argv(&bad, &["x".into()])
            .unwrap_err()
            .contains("no parameter"));
    }

    #[test]
    fn values_never_become_options_or_other_variables() {
        let fetch = skill("name: f\ndescription: d\nparameters:\n  - {name: url, type: url, required: true}\n  - {name: out, type: string, default: a.bin}\ncommand: curl -o {{out}} {{url}}\n");
        fetch.validate("f").unwrap();
        let args = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>()
        };
        let e = fetch
            .argv(
                &args(&[("url", "http://x.test/"), ("out", "--config")]),
                &[],
            )
            .unwrap_err();
        assert!(e.contains("starts with `-`") && e.contains("curl"), "{e}");
        for bad in [
            "-K/tmp/x",
            "file:///proc/1/environ",
            "ftp://x.test/",
            "http://user:pw@x.test/",
            "http://good.test@evil.test/",
            "http:///etc/passwd",
            "http://x.test/a b",
            "gopher://x.test",
            "http://x.test:99999999/",
        ] {
            let e = fetch.argv(&args(&[("url", bad)]), &[]).unwrap_err();
            assert!(e.contains("is not a url"), "{bad}: {e}");
        }
        for good in [
            "http://127.0.0.1:8080/x?a=1",
            "HTTPS://example.com",
            "http://[::1]:80/",
        ] {
            assert!(fetch.argv(&args(&[("url", good)]), &[]).is_ok(), "{good}");
        }
        let echo = skill("name: e\ndescription: d\nparameters:\n  - {name: a, type: string}\n  - {name: b, type: string}\ncommand: echo x{{a}}y{{b}}\n");
        let argv = echo
            .argv(&args(&[("a", "{{b}}"), ("b", "B")]), &[])
            .unwrap();
        assert_eq!(argv, vec!["echo", "x{{b}}yB"], "substituted once");
        let after = skill("name: g\ndescription: d\nparameters:\n  - {name: p, type: string}\ncommand: grep -- {{p}}\n");
        assert_eq!(
            after.argv(&args(&[("p", "-v")]), &[]).unwrap(),
            vec!["grep", "--", "-v"],
            "after `--` a value is an operand"
        );
    }

    #[test]
    fn declared_folders_stay_inside_the_town() {
        for bad in ["/etc", "../x", "a/../../b", "./a", ""] {
            let s = skill(&format!("name: a\ndescription: d\ncommand: ls\nfolders: [{{path: '{bad}', access: ReadOnly}}]\n"));
            assert!(
                s.validate("a").unwrap_err().contains("folders[0].path"),
                "{bad}"
            );
        }
        let s = skill("name: a\ndescription: d\ncommand: ls\nworkdir: /\n");
        assert!(s.validate("a").unwrap_err().contains("workdir"));
    }

    #[test]
    fn the_template_skills_are_valid() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills");
        let skills = load_all(&dir).unwrap();
        assert!(skills.contains_key("checksum") && skills.contains_key("summarize"));
        assert!(skills["summarize"]
            .argv(&BTreeMap::new(), &["x".into()])
            .is_err());
    }

    #[test]
    fn invalid_skills_are_refused_before_use() {
        let s = skill(
            "name: a\ndescription: d\ncommand: '{{p}} -x'\nparameters: [{name: p, type: string}]\n",
        );
        assert!(s.validate("a").unwrap_err().contains("program"));
        let s = skill("name: a\ndescription: d\ncommand: ls {{nope}}\n");
        assert!(s.validate("a").unwrap_err().contains("nope"));
        let s = skill("name: a\ndescription: d\ncommand: ls\nprompt: hi\n");
        assert!(s.validate("a").unwrap_err().contains("exactly one"));
        let s = skill("name: a\ndescription: d\ncommand: sleep {{s}}\nparameters: [{name: s, type: integer, default: soon}]\n");
        assert!(s.validate("a").unwrap_err().contains("default"));
        let s = skill("name: b\ndescription: d\ncommand: ls\n");
        assert!(s.validate("a").unwrap_err().contains("file name"));
        assert!(serde_yaml_ng::from_str::<Skill>(
            "name: a\ndescription: d\ncommand: ls\nshell: true\n"
        )
        .is_err());
    }

    #[test]
    fn network_hosts_are_checked_as_the_file_is_read() {
        let s = skill(
            "name: a\ndescription: d\ncommand: curl\nnetwork: [example.com, '198.18.0.2:8080']\n",
        );
        assert_eq!(s.network.entries().len(), 2);
        assert!(skill("name: a\ndescription: d\ncommand: ls\n")
            .network
            .is_empty());
        let err = serde_yaml_ng::from_str::<Skill>(
            "name: a\ndescription: d\ncommand: curl\nnetwork: [example.com, 'https://evil.example/x']\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("network[1]") && err.contains("without a scheme"),
            "{err}"
        );
    }

    /// Red team: a path passed positionally is weighed like a named one (`run checksum
    /// ../keys/owner.nsec` binds to `file`).
    #[test]
    fn positional_values_are_weighed_by_the_parameter_they_fill() {
        let yaml = "name: checksum\ndescription: x\nparameters:\n  - {name: file, type: string, required: true}\ncommand: sha256sum {{file}}\nrisk: none\n";
        let sk: Skill = serde_yaml_ng::from_str(yaml).unwrap();
        let bound = sk.bind(&Default::default(), &["../keys/owner.nsec".to_owned()]);
        let wd = std::path::Path::new("/town/workspace");
        let e = soul_guard::effects::weigh(sk.command.as_deref(), wd, &bound, &[], false, |_| true);
        assert!(
            matches!(&e[..], [soul_guard::Effect::Outside { param, resolved }] if param == "file" && resolved == "/town/keys/owner.nsec"),
            "{e:?}"
        );
    }
}
