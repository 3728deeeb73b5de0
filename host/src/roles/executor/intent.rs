//! The built-in mind's reading of a plain task as a skill run: which skill (named outright, or
//! by one of the phrases its file lists under `intents:`), and the values the text gives for its
//! required parameters (an http(s) URL for a `url` parameter, a path for a file or folder).
//!
//! Nothing here decides: the run it proposes is bound and validated like any other
//! (`Skill::bind`), weighed by the guardian (paths outside the skill's folder, hosts) and gated.

use std::collections::BTreeMap;

use super::skill::{ParamType, Skill};
use crate::roles::worker::command::Action;

/// The skill `text` asks for: a word naming it, else the longest of its intents found in the
/// text (so "count the lines" beats "count").
pub fn skill_for<'a>(
    text: &str,
    words: &[&str],
    skills: &'a BTreeMap<String, Skill>,
) -> Option<&'a Skill> {
    if let Some(s) = words.iter().find_map(|w| skills.get(*w)) {
        return Some(s);
    }
    let lower = text.to_lowercase();
    skills
        .values()
        .filter_map(|s| {
            s.intents
                .iter()
                .filter(|i| !i.trim().is_empty() && lower.contains(&i.to_lowercase()))
                .map(|i| i.chars().count())
                .max()
                .map(|len| (len, s))
        })
        .max_by_key(|(len, s)| (*len, std::cmp::Reverse(s.name.clone())))
        .map(|(_, s)| s)
}

/// The control command a task asks of a worker: its command word among the task's words
/// (`pause`, `resume`, `adjust_params` with its `key=value` numbers), exactly one of them.
/// Restarts are not here: they go through the two-step restart protocol (seed 000).
pub fn control(words: &[&str]) -> Option<Action> {
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let asked: Vec<&str> = ["pause", "resume", "adjust_params"]
        .into_iter()
        .filter(|c| lower.iter().any(|w| w == c))
        .collect();
    match asked.as_slice() {
        ["pause"] => Some(Action::Pause),
        ["resume"] => Some(Action::Resume),
        ["adjust_params"] => {
            let changes: BTreeMap<String, f64> = words
                .iter()
                .filter_map(|w| w.split_once('='))
                .filter_map(|(k, v)| Some((k.to_string(), v.parse::<f64>().ok()?)))
                .filter(|(k, v)| !k.is_empty() && v.is_finite())
                .collect();
            (!changes.is_empty()).then_some(Action::AdjustParams(changes))
        }
        _ => None,
    }
}

/// Adds to `args` what the text gives for `skill`'s required parameters that `key=value` words
/// did not: the first http(s) URL for a `url` parameter, the first path-like word for a string
/// parameter. A path that starts with the skill's own folder ("workspace/notes.txt" for a skill
/// that runs in workspace) is taken relative to it.
pub fn fill(skill: &Skill, words: &[&str], args: &mut BTreeMap<String, String>) {
    let url = words
        .iter()
        .find(|w| w.starts_with("https://") || w.starts_with("http://"));
    let path = words.iter().find(|w| looks_like_path(w));
    for p in skill.parameters.iter().filter(|p| p.required) {
        if args.contains_key(&p.name) {
            continue;
        }
        let value = match p.kind {
            ParamType::Url => url.map(|u| u.to_string()),
            ParamType::String => path.map(|w| {
                let own = format!("{}/", skill.workdir.trim_end_matches('/'));
                w.strip_prefix(own.as_str()).unwrap_or(w).to_string()
            }),
            _ => None,
        };
        if let Some(v) = value {
            args.insert(p.name.clone(), v);
        }
    }
}

/// The required parameters `args` still lacks.
pub fn missing(skill: &Skill, args: &BTreeMap<String, String>) -> Vec<String> {
    skill
        .parameters
        .iter()
        .filter(|p| p.required && !args.contains_key(&p.name))
        .map(|p| p.name.clone())
        .collect()
}

fn looks_like_path(w: &str) -> bool {
    if w.contains("://") || w.contains('=') {
        return false;
    }
    let has_ext = w.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
    });
    w.contains('/') || has_ext
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skills() -> BTreeMap<String, Skill> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills");
        super::super::skill::load_all(&dir).unwrap()
    }

    fn words(text: &str) -> Vec<&str> {
        text.split_whitespace().collect()
    }

    #[test]
    fn plain_tasks_find_the_bundled_skills_and_their_values() {
        let s = skills();
        let text = "Count the lines of workspace/notes.txt";
        let w = words(text);
        let k = skill_for(text, &w, &s).unwrap();
        assert_eq!(k.name, "count_lines");
        let mut args = BTreeMap::new();
        fill(k, &w, &mut args);
        assert_eq!(args["file"], "notes.txt");

        let text = "download https://example.com/report.pdf into downloads";
        let w = words(text);
        let k = skill_for(text, &w, &s).unwrap();
        assert_eq!(k.name, "fetch");
        let mut args = BTreeMap::new();
        fill(k, &w, &mut args);
        assert_eq!(args["url"], "https://example.com/report.pdf");

        let text = "workspace/notes.txt の行数を数えて";
        assert_eq!(
            skill_for(text, &words(text), &s).unwrap().name,
            "count_lines"
        );
    }

    #[test]
    fn a_task_asks_one_control_command_or_none() {
        assert_eq!(control(&words("Pause the buddy")), Some(Action::Pause));
        assert_eq!(control(&words("resume buddy")), Some(Action::Resume));
        let adjust = control(&words("adjust_params run_timeout_secs=20 on the executor"));
        assert_eq!(
            adjust,
            Some(Action::AdjustParams(BTreeMap::from([(
                "run_timeout_secs".to_string(),
                20.0
            )])))
        );
        // Ambiguous, valueless or merely similar: nothing is commanded.
        assert_eq!(control(&words("pause or resume the buddy")), None);
        assert_eq!(control(&words("adjust_params of the buddy")), None);
        assert_eq!(control(&words("adjust_params x=NaN")), None);
        assert_eq!(control(&words("a paused buddy")), None);
    }

    #[test]
    fn a_task_no_skill_does_finds_none() {
        let s = skills();
        let text = "Back up the family photos to the external disk every Sunday";
        assert!(skill_for(text, &words(text), &s).is_none());
    }

    /// Red team: a path the text smuggles in is still only a value; binding and the guardian
    /// judge it (see the executor's and the guardian's tests). Here: it is not mistaken for an
    /// option or a key=value, and a URL is never taken as a path.
    #[test]
    fn values_are_words_of_the_text_never_options() {
        assert!(!looks_like_path("https://evil.example/x.sh"));
        assert!(!looks_like_path("file=../../keys/owner.nsec"));
        assert!(looks_like_path("../keys/owner.nsec"));
        let s = skills();
        let text = "count the lines of ../keys/owner.nsec";
        let w = words(text);
        let mut args = BTreeMap::new();
        fill(skill_for(text, &w, &s).unwrap(), &w, &mut args);
        assert_eq!(
            args["file"], "../keys/owner.nsec",
            "kept as given, for the guardian to refuse"
        );
    }
}
