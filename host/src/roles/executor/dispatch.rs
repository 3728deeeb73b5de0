//! Triceratops's side of the workers: a decided task that names a skill runs on the executor,
//! and one that asks a worker to pause, resume or adjust its params is sent to that worker; the
//! reply becomes the execution event (DESIGN §6 step 4, §9).
//!
//! Triceratops sends `{"command": "run", "skill", "args", "decision", "request"}` (or
//! `{"command": "pause", "decision", "request"}`, …) by NIP-17 DM (the decision authorises it,
//! see [`crate::roles::worker::auth`]) and reads the worker's JSON reply on its own
//! authenticated connection. Replies are keyed by the decision id and read back from the relay
//! after a restart, so a command's outcome is never lost with the process.

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
use crate::roles::worker::command::Action;
use crate::roles::worker::reply::{Reply, RunResult, ACCEPTED, REFUSED};
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

/// A control command a task asks of one worker ("Pause the buddy").
#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    /// The worker the task names.
    pub worker: PublicKey,
    /// Its name.
    pub worker_name: String,
    /// What it is to do (pause, resume, adjust_params).
    pub action: Action,
}

impl Order {
    /// The JSON command that carries it, citing `decision`.
    fn command(&self, decision: EventId) -> serde_json::Value {
        let mut command = serde_json::json!({
            "command": self.action.word(),
            "decision": decision.to_hex(),
            "request": decision.to_hex(),
        });
        if let Action::AdjustParams(changes) = &self.action {
            command["params"] = serde_json::json!(changes);
        }
        command
    }
}

/// What a decided task has a worker do: an order comes first, as "pause" is never a skill.
enum Work {
    Order(Order),
    Run(Job),
}

/// Where a dispatched run or order stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// The task names no skill with an executor: not a job for the executor.
    NotMine,
    /// Sent; no result yet.
    Waiting,
    /// The execution event to publish.
    Done(Execution),
}

/// Final replies by request id, and the requests sent (an answer counts only from the
/// worker asked, replying to the request it was asked: [`Requests`]).
#[derive(Debug, Default)]
struct Filed {
    replies: HashMap<String, Reply>,
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
        let words = words(&text);
        let skill = super::intent::skill_for(&text, &words, &skills)?;
        let executors: Vec<_> = self
            .roster
            .members()
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

    /// The control command `task` asks of a worker: a command word ([`super::intent::control`])
    /// and exactly one worker (buddy or executor) named by name or key. `None` otherwise.
    pub fn order(&self, task: &Task) -> Option<Order> {
        let text = format!("{} {}", task.title, task.description);
        let action = super::intent::control(&words(&text))?;
        let named: Vec<_> = self
            .roster
            .members()
            .iter()
            .filter(|m| matches!(m.role, Role::Buddy | Role::Executor))
            .filter(|m| {
                names(
                    &text,
                    &Worker {
                        name: &m.name,
                        pubkey: m.pubkey,
                    },
                )
            })
            .collect();
        match named.as_slice() {
            [only] => Some(Order {
                worker: only.pubkey,
                worker_name: only.name.clone(),
                action,
            }),
            _ => None,
        }
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

    /// Sends `order` to its worker on the authority of `decision`.
    pub async fn command(
        &self,
        me: &Identity,
        decision: EventId,
        order: &Order,
    ) -> Result<(), HostError> {
        let (dm, results) = self.inbox(me).await?;
        let text = order.command(decision).to_string();
        let rumor = dm.send(order.worker, &text, vec![]).await?;
        if let Ok(mut f) = results.lock() {
            f.sent.record(rumor, order.worker, decision.to_hex());
        }
        tracing::info!(brain = %me.name, worker = %order.worker_name, command = order.action.word(), %decision, "commanded a worker");
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
        let work = match (self.order(task), self.plan(task)) {
            (Some(order), _) => Work::Order(order),
            (None, Some(job)) => Work::Run(job),
            (None, None) => return Ok(Progress::NotMine),
        };
        let (_, results) = self.inbox(me).await?;
        let found = results
            .lock()
            .ok()
            .and_then(|r| r.replies.get(&decision.to_hex()).cloned());
        if let Some(reply) = found {
            return Ok(Progress::Done(match &work {
                Work::Order(order) => ordered(order, &reply),
                Work::Run(job) => execution(job, &run_result(reply)),
            }));
        }
        let waited = started.map_or(0, |s| {
            Timestamp::now().as_secs().saturating_sub(s.as_secs())
        });
        if waited > RESULT_PATIENCE.as_secs() {
            let what = match &work {
                Work::Order(o) => {
                    format!("no answer from {} to {}", o.worker_name, o.action.word())
                }
                Work::Run(j) => format!("no result from {} for skill {}", j.executor_name, j.skill),
            };
            return Ok(Progress::Done(Execution {
                status: ExecStatus::Failed,
                result: format!("{what} within {} s", RESULT_PATIENCE.as_secs()),
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

/// Files a worker's final reply under its request id.
fn file(results: &Results, m: &Message) {
    if m.tag("status") == Some(ACCEPTED) {
        return;
    }
    let Ok(reply) = serde_json::from_str::<Reply>(&m.text) else {
        return;
    };
    let Ok(mut f) = results.lock() else {
        return;
    };
    let claimed = reply
        .result
        .as_ref()
        .and_then(|r| r.request.clone())
        .or_else(|| reply.request.clone());
    match f.sent.answered_by(m, claimed.as_deref()) {
        Ok(sent) => {
            let req = sent.request.clone();
            f.replies.insert(req, reply);
        }
        Err(why) => {
            tracing::warn!(from = %m.sender, wrap = %m.wrap_id, "ignored a worker's reply: {why}");
        }
    }
}

/// A run's result from its reply; refused before running (or a reply without a result), the
/// reason stands as the error.
fn run_result(reply: Reply) -> RunResult {
    reply.result.unwrap_or(RunResult {
        request: reply.request,
        skill: String::new(),
        exit_code: None,
        output: String::new(),
        error: reply.message,
        timed_out: false,
        truncated: false,
        elapsed_ms: 0,
    })
}

/// The execution an order's reply makes: completed only when the worker says it did it.
fn ordered(order: &Order, reply: &Reply) -> Execution {
    let done = reply.ok && reply.command != REFUSED;
    let head = if done {
        format!("{} did {}", order.worker_name, order.action.word())
    } else {
        format!("{} did not {}", order.worker_name, order.action.word())
    };
    Execution {
        status: if done {
            ExecStatus::Completed
        } else {
            ExecStatus::Failed
        },
        result: format!("{head}: {}", reply.message)
            .chars()
            .take(3900)
            .collect(),
    }
}

/// Words at whitespace, stripped of the punctuation around them ("checksum," "「list」").
fn words(text: &str) -> Vec<&str> {
    text.split(char::is_whitespace)
        .map(|w| {
            w.trim_matches(|c: char| matches!(c, '"' | '\'' | '「' | '」' | '(' | ')'))
                .trim_end_matches(['.', ',', ';', ':', '!', '?', '。', '、'])
        })
        .filter(|w| !w.is_empty())
        .collect()
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
