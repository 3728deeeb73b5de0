//! A decision authorises exactly what was decided (issue 20): a brain citing an approved
//! decision may give a worker only the command its task asked for — the same skill with the
//! same values on the executor the task names, or the control word the task names. Anything
//! else is refused, naming the difference.

use soul_kinds::Task;

use super::command::Action;
use crate::roles::executor::dispatch::Job;

/// The task's words, stripped of the punctuation around them (as the dispatcher reads them).
fn words(text: &str) -> Vec<String> {
    text.split(char::is_whitespace)
        .map(|w| {
            w.trim_matches(|c: char| matches!(c, '"' | '\'' | '「' | '」' | '(' | ')'))
                .trim_end_matches(['.', ',', ';', ':', '!', '?', '。', '、'])
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether `action` is what `task` decided for the worker `me`. `plan` is the run the task
/// asks for (the dispatcher's reading of it), if any.
pub fn matches(
    action: &Action,
    task: &Task,
    plan: Option<&Job>,
    me: &nostr::PublicKey,
) -> Result<(), String> {
    let title = &task.title;
    match action {
        Action::Run {
            skill,
            named,
            positional,
        } => {
            let Some(job) = plan else {
                return Err(format!(
                    "the decided task \"{title}\" asks for no skill run"
                ));
            };
            if job.executor != *me {
                return Err(format!(
                    "the decided task \"{title}\" asks {} to run it, not this worker",
                    job.executor_name
                ));
            }
            if job.skill != *skill {
                return Err(format!(
                    "the decided task \"{title}\" runs {}, not {skill}",
                    job.skill
                ));
            }
            if !positional.is_empty() || job.args != *named {
                return Err(format!(
                    "the decided task \"{title}\" runs {} with {:?}, not with {:?}{}",
                    job.skill,
                    job.args,
                    named,
                    if positional.is_empty() {
                        String::new()
                    } else {
                        format!(" and {positional:?}")
                    }
                ));
            }
            Ok(())
        }
        Action::Status => Ok(()),
        Action::Pause | Action::Resume | Action::Restart | Action::AdjustParams(_) => {
            let text = words(&format!("{} {}", task.title, task.description));
            let word = action.word();
            if !text.iter().any(|w| w == word) {
                return Err(format!(
                    "the decided task \"{title}\" does not ask to {word} this worker"
                ));
            }
            if let Action::AdjustParams(changes) = action {
                for (k, v) in changes {
                    let said = text.iter().any(|w| {
                        w.split_once('=')
                            .is_some_and(|(tk, tv)| tk == k && tv.parse::<f64>() == Ok(*v))
                    });
                    if !said {
                        return Err(format!("the decided task \"{title}\" does not set {k}={v}"));
                    }
                }
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use nostr::Keys;
    use soul_kinds::Priority;

    use super::*;

    fn task(title: &str) -> Task {
        Task {
            title: title.into(),
            description: String::new(),
            priority: Priority::Medium,
            task_type: "task".into(),
        }
    }

    fn run(skill: &str, args: &[(&str, &str)]) -> Action {
        Action::Run {
            skill: skill.into(),
            named: args
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            positional: vec![],
        }
    }

    #[test]
    fn a_decision_runs_only_the_decided_skill_with_the_decided_values() {
        let me = Keys::generate().public_key();
        let job = Job {
            executor: me,
            executor_name: "executor".into(),
            skill: "checksum".into(),
            args: BTreeMap::from([("file".into(), "notes.txt".into())]),
        };
        let t = task("Ask the executor to run checksum file=notes.txt");
        assert!(matches(
            &run("checksum", &[("file", "notes.txt")]),
            &t,
            Some(&job),
            &me
        )
        .is_ok());
        let other = matches(&run("fetch", &[("file", "notes.txt")]), &t, Some(&job), &me);
        assert!(other.unwrap_err().contains("runs checksum, not fetch"));
        let values = matches(
            &run("checksum", &[("file", "../keys/owner.nsec")]),
            &t,
            Some(&job),
            &me,
        );
        assert!(values.unwrap_err().contains("not with"));
        let extra = matches(
            &run("checksum", &[("file", "notes.txt"), ("out", "x")]),
            &t,
            Some(&job),
            &me,
        );
        assert!(extra.is_err());
        let elsewhere = Keys::generate().public_key();
        assert!(matches(
            &run("checksum", &[("file", "notes.txt")]),
            &t,
            Some(&job),
            &elsewhere
        )
        .is_err());
        assert!(matches(&run("checksum", &[]), &task("Tidy up"), None, &me).is_err());
    }

    #[test]
    fn a_control_command_needs_its_word_and_values_in_the_task() {
        let me = Keys::generate().public_key();
        let t = task("Pause the buddy for the night, then set max_reply_chars=300");
        assert!(matches(&Action::Pause, &t, None, &me).is_ok());
        assert!(matches(&Action::Restart, &t, None, &me).is_err());
        let t = task("Have the buddy adjust_params max_reply_chars=300");
        let ok = Action::AdjustParams(BTreeMap::from([("max_reply_chars".into(), 300.0)]));
        let bad = Action::AdjustParams(BTreeMap::from([("max_reply_chars".into(), 4000.0)]));
        assert!(matches(&ok, &t, None, &me).is_ok());
        assert!(matches(&bad, &t, None, &me)
            .unwrap_err()
            .contains("does not set"));
    }
}
