//! Triceratops's side of the executor: a decided task that names a skill and an executor runs
//! there, and its result becomes the execution event (DESIGN §6 step 4, §9).
//!
//! Triceratops sends `{"command": "run", "skill", "args", "decision", "request"}` by NIP-17 DM
//! (the decision authorises it, see [`crate::roles::worker::auth`]) and reads the executor's
//! JSON reply on its own authenticated connection. Results are keyed by the decision id and read
//! back from the relay after a restart, so a run's result is never lost with the process.

use crate::HostError;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use nostr::{EventId, PublicKey, Timestamp};
use soul_kinds::{ExecStatus, Execution, Role, Roster, Task};
use tokio::sync::OnceCell;

use super::{skill, SKILLS_DIR};
use crate::roles::worker::auth::{names, Worker};
use crate::roles::worker::reply::{Reply, RunResult, ACCEPTED};
use soul_link::dm::requests::Requests;
use soul_link::dm::{DmClient, Message};
use soul_link::Identity;

/// How long triceratops waits for a run's result (start 10 s + run 30 s + delivery).
pub const RESULT_PATIENCE: Duration = Duration::from_secs(90);

/// A run a task asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// The executor named by the task.
    pub executor: PublicKey,
    /// Its name.
    pub executor_name: String,
    /// The skill named by the task.
    pub skill: String,
    /// `key=value` words of the task text.
    pub args: BTreeMap<String, String>,
}

/// Where a dispatched run stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// The task names no skill with an executor: not a job for the executor.
    NotMine,
    /// Sent; no result yet.
    Waiting,
    /// The execution event to publish.
    Done(Execution),
}

/// Run results by request id, and the requests sent (an answer counts only from the
/// executor asked, replying to the request it was asked: [`Requests`]).
#[derive(Debug, Default)]
struct Filed {
    results: HashMap<String, RunResult>,
    sent: Requests,
}

type Results = Arc<Mutex<Filed>>;

/// Triceratops's connection to the executor; cheap to clone, connects on first use.
#[derive(Debug, Clone)]
pub struct Dispatch {
    relay_url: String,
    town: PathBuf,
    roster: Roster,
    inbox: Arc<OnceCell<(DmClient, Results)>>,
}

impl Dispatch {
    /// A dispatcher for the host in `ctx`.
    pub fn new(ctx: &crate::roles::RoleCtx) -> Self {
        Self {
            relay_url: ctx.options.relay_url.clone(),
            town: ctx.options.town_dir.clone(),
            roster: ctx.options.roster.clone(),
            inbox: Arc::new(OnceCell::new()),
        }
    }

    /// The run `task` asks for: a skill of the town's `skills/` named in its title or
    /// description or asked for by one of the skill's `intents`, with the values the text gives
    /// (see [`super::intent`]), on the executor it names or the town's only one. `None` when no
    /// skill fits or a required value is missing.
    pub fn plan(&self, task: &Task) -> Option<Job> {
        let text = format!("{} {}", task.title, task.description);
        let skills = skill::load_all(&self.town.join(SKILLS_DIR)).ok()?;
        // Words at whitespace, stripped of the punctuation around them ("checksum," "「list」").
        let words: Vec<&str> = text
            .split(char::is_whitespace)
            .map(|w| {
                w.trim_matches(|c: char| matches!(c, '"' | '\'' | '「' | '」' | '(' | ')'))
                    .trim_end_matches(['.', ',', ';', ':', '!', '?', '。', '、'])
            })
            .filter(|w| !w.is_empty())
            .collect();
        let skill = super::intent::skill_for(&text, &words, &skills)?;
        let executors: Vec<_> = self
            .roster
            .members
            .iter()
            .filter(|m| m.role == Role::Executor)
            .collect();
        // The executor the task names, or the town's only one.
        let member = executors
            .iter()
            .find(|m| {
                names(
                    &text,
                    &Worker {
                        name: &m.name,
                        pubkey: m.pubkey,
                    },
                )
            })
            .or(match executors.as_slice() {
                [only] => Some(only),
                _ => None,
            })?;
        let mut args: BTreeMap<String, String> = words
            .iter()
            .filter_map(|w| w.split_once('='))
            .filter(|(k, _)| !k.is_empty())
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        super::intent::fill(skill, &words, &mut args);
        if !super::intent::missing(skill, &args).is_empty() {
            return None;
        }
        let skill = skill.name.clone();
        Some(Job {
            executor: member.pubkey,
            executor_name: member.name.clone(),
            skill,
            args,
        })
    }

    /// The names of the town's skills (for telling the owner what exists).
    pub fn skill_names(&self) -> Vec<String> {
        skill::load_all(&self.town.join(SKILLS_DIR))
            .map(|s| s.into_keys().collect())
            .unwrap_or_default()
    }

    /// Sends `job` to its executor on the authority of `decision`.
    pub async fn send(&self, me: &Identity, decision: EventId, job: &Job) -> Result<(), HostError> {
        let command = serde_json::json!({
            "command": "run",
            "skill": job.skill,
            "args": job.args,
            "decision": decision.to_hex(),
            "request": decision.to_hex(),
        });
        let (dm, results) = self.inbox(me).await?;
        let rumor = dm.send(job.executor, &command.to_string(), vec![]).await?;
        if let Ok(mut f) = results.lock() {
            f.sent.record(rumor, job.executor, decision.to_hex());
        }
        tracing::info!(brain = %me.name, executor = %job.executor_name, skill = %job.skill, %decision, "asked the executor to run a skill");
        Ok(())
    }

    /// The execution that follows `decision`'s run, if any; `started` is when execution began.
    pub async fn progress(
        &self,
        me: &Identity,
        task: &Task,
        decision: EventId,
        started: Option<Timestamp>,
    ) -> Result<Progress, HostError> {
        let Some(job) = self.plan(task) else {
            return Ok(Progress::NotMine);
        };
        let (_, results) = self.inbox(me).await?;
        let found = results
            .lock()
            .ok()
            .and_then(|r| r.results.get(&decision.to_hex()).cloned());
        if let Some(r) = found {
            return Ok(Progress::Done(execution(&job, &r)));
        }
        let waited = started.map_or(0, |s| {
            Timestamp::now().as_secs().saturating_sub(s.as_secs())
        });
        if waited > RESULT_PATIENCE.as_secs() {
            return Ok(Progress::Done(Execution {
                status: ExecStatus::Failed,
                result: format!(
                    "no result from {} for skill {} within {} s",
                    job.executor_name,
                    job.skill,
                    RESULT_PATIENCE.as_secs()
                ),
            }));
        }
        Ok(Progress::Waiting)
    }

    async fn inbox(&self, me: &Identity) -> Result<&(DmClient, Results), HostError> {
        self.inbox
            .get_or_try_init(|| async {
                let dm = DmClient::connect(&self.relay_url, &me.keys).await?;
                let mut rx = dm.follow().await?;
                let results: Results = Arc::default();
                let me_key = me.keys.public_key();
                let history = dm.history().await?;
                // Our own requests first: an answer is checked against them.
                for m in history.iter().filter(|m| m.sender == me_key) {
                    if let Ok(mut f) = results.lock() {
                        f.sent.absorb_own(m);
                    }
                }
                for m in history.iter().filter(|m| m.sender != me_key) {
                    file(&results, m);
                }
                let (reader, weak) = (dm.clone(), Arc::downgrade(&results));
                tokio::spawn(async move {
                    while let Some(m) = reader.next(&mut rx).await {
                        let Some(results) = Weak::upgrade(&weak) else {
                            break;
                        };
                        if m.sender == me_key {
                            // Our copy of a request, seen before its answer can be.
                            if let Ok(mut f) = results.lock() {
                                f.sent.absorb_own(&m);
                            }
                        } else {
                            file(&results, &m);
                        }
                    }
                    reader.close().await;
                });
                Ok((dm, results))
            })
            .await
    }
}

/// Files a final run reply from an executor under its request id.
fn file(results: &Results, m: &Message) {
    if m.tag("status") == Some(ACCEPTED) {
        return;
    }
    let Ok(reply) = serde_json::from_str::<Reply>(&m.text) else {
        return;
    };
    let result = match reply.result {
        Some(r) => r,
        // Refused before running: keep the reason as the result.
        None if reply.command == "refused" => RunResult {
            request: reply.request.clone(),
            skill: String::new(),
            exit_code: None,
            output: String::new(),
            error: reply.message.clone(),
            timed_out: false,
            truncated: false,
            elapsed_ms: 0,
        },
        None => return,
    };
    let Ok(mut f) = results.lock() else {
        return;
    };
    let claimed = result.request.clone().or(reply.request);
    match f.sent.answered_by(m, claimed.as_deref()) {
        Ok(sent) => {
            let req = sent.request.clone();
            f.results.insert(req, result);
        }
        Err(why) => {
            tracing::warn!(from = %m.sender, wrap = %m.wrap_id, "ignored a run result: {why}");
        }
    }
}

fn execution(job: &Job, r: &RunResult) -> Execution {
    let head = match (r.timed_out, r.exit_code) {
        (true, _) => format!(
            "{} ran {}: killed at the run time-out",
            job.executor_name, job.skill
        ),
        (false, Some(c)) => format!("{} ran {}: exit code {c}", job.executor_name, job.skill),
        (false, None) => format!("{} did not run {}", job.executor_name, job.skill),
    };
    let mut text = head;
    if !r.output.trim().is_empty() {
        text.push_str(&format!("\noutput: {}", r.output.trim()));
    }
    if !r.error.trim().is_empty() {
        text.push_str(&format!("\nerror: {}", r.error.trim()));
    }
    let result: String = text.chars().take(3900).collect();
    Execution {
        status: if r.succeeded() {
            ExecStatus::Completed
        } else {
            ExecStatus::Failed
        },
        result,
    }
}
