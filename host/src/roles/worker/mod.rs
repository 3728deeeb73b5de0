//! What every worker (buddy, executor) shares: commands by NIP-17 DM, their authorization and
//! replay protection, the worker state (34363), and suggestions (4368).
//!
//! A worker reads its gift wraps on its own authenticated connection ([`DmClient`]), ignores
//! replays and stale commands ([`Seen`], rebuilt from its own replies on the relay), checks who
//! may command it ([`auth`]), carries the command out, and answers by DM. Pause, resume and
//! params live in its state event, so they survive restarts. Anything that is not a command
//! goes to the worker's job: the buddy chats; the executor answers only its owner.
//!
//! # Layout
//! - [`command`]: parsing plain text and JSON commands.
//! - [`auth`]: owner, or brain with an approved decision naming the worker.
//! - [`decided`]: a decision authorises exactly the command its task decided.
//! - [`origin`]: a brain's command on a task the owner did not sign waits for the owner's yes.
//! - [`state`]: the 34363 state and params with ranges.
//! - [`reply`]: the answer's shape (text or JSON; a run's result).
//! - [`suggest`]: one suggestion per rolling hour; triceratops turns accepted ones into tasks.
//! - [`guarded`]: the guardian and the gate on every command that acts, before it acts.

pub mod auth;
pub mod command;
pub mod decided;
pub mod guarded;
pub mod origin;
pub mod reply;
pub mod state;
pub mod suggest;

use crate::HostError;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use nostr::{EventId, Timestamp};
use soul_kinds::{Role, WorkerRun, WorkerState};
use tokio::task::{AbortHandle, JoinSet};

use self::command::{Action, Command};
use self::guarded::Pass;
use self::reply::{send_reply, Reply, REFUSED, UNREADABLE};
use self::state::{Current, ParamSpec};
use crate::roles::buddy::Buddy;
use crate::roles::executor::Executor;
use crate::roles::RoleCtx;
use soul_guard::confirm;
use soul_link::dm::replay::{Seen, Stale, MAX_AGE_SECS};
use soul_link::dm::{DmClient, Message};
use soul_link::Identity;

/// The worker's own job.
#[derive(Clone)]
pub enum Job {
    /// Chats in the owner's persona.
    Buddy(Arc<Buddy>),
    /// Runs skills in the sandbox.
    Executor(Arc<Executor>),
}

impl Job {
    fn specs(&self) -> &'static [ParamSpec] {
        match self {
            Job::Buddy(_) => crate::roles::buddy::PARAMS,
            Job::Executor(_) => crate::roles::executor::PARAMS,
        }
    }
}

/// Starts a buddy's or an executor's tasks (the DM loop; the buddy's mentions too).
pub fn spawn_role(
    tasks: &mut JoinSet<Result<(), HostError>>,
    agent: &Identity,
    ctx: &RoleCtx,
) -> Vec<AbortHandle> {
    let town = &ctx.options.town_dir;
    let job = match agent.role {
        Role::Buddy => match Buddy::load(town) {
            Ok(b) => Job::Buddy(Arc::new(b)),
            Err(e) => {
                tracing::error!(agent = %agent.name, "the buddy cannot start: {e}");
                return Vec::new();
            }
        },
        Role::Executor => Job::Executor(Arc::new(Executor::new(town))),
        _ => return Vec::new(),
    };
    let mut handles = Vec::new();
    if let Job::Buddy(b) = &job {
        let owner = ctx.options.roster.owner;
        let m = crate::roles::buddy::mention::run(
            agent.clone(),
            ctx.link.clone(),
            Arc::clone(b),
            owner,
            Arc::clone(ctx.options.minds.of(&agent.name)),
        );
        handles.push(tasks.spawn(m));
    }
    handles.push(tasks.spawn(run(agent.clone(), ctx.clone(), job)));
    handles
}

struct Worker {
    me: Identity,
    ctx: RoleCtx,
    dm: DmClient,
    job: Job,
    current: Current,
    seen: Seen,
    /// Codes of the questions this worker asked the owner (CONFIRM): the owner's answers go
    /// to the guardian's asker, and must not be read here as commands or chat.
    asked: HashSet<String>,
    /// Gift wraps already considered by this process, live or swept.
    considered: HashSet<EventId>,
}

/// Runs a worker until its task is aborted.
pub async fn run(me: Identity, ctx: RoleCtx, job: Job) -> Result<(), HostError> {
    let dm = DmClient::connect(&ctx.options.relay_url, &me.keys).await?;
    let _close = dm.close_on_drop();
    let mut rx = dm.follow().await?;
    let history = dm.history().await?;
    let my = me.keys.public_key();
    let seen = Seen::from_history(&my, &history);
    let specs = job.specs();
    let current = match state::load(&ctx.link, &me.keys, &me.name).await? {
        Some(c) => c,
        None => {
            let fresh = WorkerState {
                state: WorkerRun::Running,
                params: state::defaults(specs),
            };
            state::publish(&ctx.link, &me.keys, &me.name, fresh, Timestamp::from(0)).await?
        }
    };
    tracing::info!(worker = %me.name, paused = current.paused(), "worker is listening for DMs");
    let mut w = Worker {
        me,
        ctx,
        dm,
        job,
        current,
        seen,
        asked: history
            .iter()
            .filter(|m| m.sender == my)
            .filter_map(|m| confirm::code_asked(&m.text).map(str::to_owned))
            .collect(),
        considered: HashSet::new(),
    };
    // What arrived while we were away, oldest first; replays and stale ones are dropped here.
    w.considered
        .extend(history.iter().filter(|m| m.sender == my).map(|m| m.wrap_id));
    for m in history.into_iter().filter(|m| m.sender != my) {
        w.take(m).await;
    }
    // Live messages, and now and then a sweep of what the relay stored lately: a message the
    // live subscription did not bring (a connection that dropped and came back, a message that
    // arrived while the subscription was being re-opened after AUTH) is still handled, once.
    let mut sweep = tokio::time::interval(SWEEP_EVERY);
    sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    sweep.tick().await;
    loop {
        tokio::select! {
            m = w.dm.next(&mut rx) => {
                let Some(m) = m else { break };
                w.take(m).await;
            }
            // Wraps already considered, or that did not open, are not decrypted again.
            _ = sweep.tick() => match w.dm.recent(Duration::from_secs(MAX_AGE_SECS), &mut w.considered).await {
                Ok(stored) => {
                    // Our own replies first: they mark what was handled.
                    let (mine, theirs): (Vec<Message>, Vec<Message>) =
                        stored.into_iter().partition(|m| m.sender == my);
                    for m in mine.into_iter().chain(theirs) {
                        if !w.considered.contains(&m.wrap_id) && m.sender != my {
                            tracing::warn!(worker = %w.me.name, wrap = %m.wrap_id, "a message the live subscription did not bring was found among the stored ones");
                        }
                        w.take(m).await;
                    }
                }
                Err(e) => tracing::debug!(worker = %w.me.name, "inbox sweep failed: {e}"),
            },
        }
    }
    Ok(())
}

/// How often a worker sweeps its stored inbox for a message the live subscription missed.
const SWEEP_EVERY: Duration = Duration::from_secs(15);

/// A control command as the guardian sees it; `None` for `status` (it only reads) and `run`
/// (judged on its own).
fn control(action: &Action, sender: nostr::PublicKey) -> Option<guarded::Guarded> {
    let parameters = match action {
        Action::Pause | Action::Resume | Action::Restart => serde_json::Map::new(),
        Action::AdjustParams(changes) => changes
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::json!(v)))
            .collect(),
        Action::Status | Action::Run { .. } => return None,
    };
    Some(guarded::control(action.word(), parameters, sender))
}

impl Worker {
    /// One message, live or swept: each wrap is considered once in this process (a refused
    /// stranger's message is not refused again at every sweep).
    async fn take(&mut self, m: Message) {
        if !self.considered.insert(m.wrap_id) {
            return;
        }
        if m.sender == self.me.keys.public_key() {
            self.seen.absorb_reply(&m);
            if let Some(code) = confirm::code_asked(&m.text) {
                self.asked.insert(code.to_owned());
            }
        } else {
            self.handle(m).await;
        }
    }

    async fn handle(&mut self, m: Message) {
        // Checked, not yet marked: only a message its sender was entitled to send is recorded
        // as handled (a refused stranger's message marks nothing).
        match self.seen.check(&m, Timestamp::now()) {
            Ok(()) => {}
            Err(Stale::Seen) => {
                tracing::info!(worker = %self.me.name, wrap = %m.wrap_id, "ignored a replayed message");
                return;
            }
            Err(Stale::TooOld(age)) => {
                tracing::info!(worker = %self.me.name, wrap = %m.wrap_id, sender = %m.sender, age, "ignored a stale message (written more than 10 minutes from now)");
                return;
            }
        }
        if m.sender == self.ctx.options.roster.owner {
            // An answer to one of our questions is read by the guardian's asker; answering it
            // here too would send the owner a stray reply.
            let code = m
                .text
                .split_whitespace()
                .find(|w| self.asked.contains(*w))
                .map(str::to_owned);
            if let Some(code) = code {
                self.seen.mark(&m);
                self.asked.remove(&code);
                tracing::debug!(worker = %self.me.name, code, "the owner answered a question; not a command");
                return;
            }
        }
        let json = m.text.trim_start().starts_with('{');
        let cmd = match command::parse(&m.text) {
            Ok(Some(mut c)) => {
                // A text command may carry its request id as a rumor tag.
                c.request = c.request.or_else(|| m.tag("request").map(str::to_string));
                c
            }
            Ok(None) => return self.chat(m).await,
            Err(e) => {
                // Not marked: whoever sent it, nothing was done (its reply marks nothing either).
                let r = Reply::new(
                    None,
                    UNREADABLE,
                    false,
                    format!("cannot read that command: {e}"),
                );
                return self.reply(&m, json, &r, false).await;
            }
        };
        let worker = auth::Worker {
            name: &self.me.name,
            pubkey: self.me.keys.public_key(),
        };
        let roster = &self.ctx.options.roster;
        let dispatch = crate::roles::executor::Dispatch::new(&self.ctx);
        let authority = match auth::authorize(
            &self.ctx.link,
            roster,
            &worker,
            &m.sender,
            &cmd,
            &dispatch,
        )
        .await
        {
            Ok(a) => a,
            Err(why) => {
                tracing::warn!(worker = %self.me.name, sender = %m.sender, wrap = %m.wrap_id, command = cmd.action.word(), "command refused: {why}");
                let r = Reply::new(
                    cmd.request.clone(),
                    REFUSED,
                    false,
                    format!("refused: {why}"),
                );
                return self.reply(&m, cmd.json, &r, false).await;
            }
        };
        self.seen.mark(&m);
        tracing::info!(worker = %self.me.name, sender = %m.sender, command = cmd.action.word(), "command accepted");
        let ask = origin::ask_for(authority, &cmd.action);
        if let Some(ask) = &ask {
            // The owner's answer goes to the asker, not to this loop as a command.
            self.asked.insert(ask.code());
        }
        if let Some(g) = control(&cmd.action, m.sender) {
            if let Some(ask) = &ask {
                if let Err(why) = origin::confirm(&self.ctx, &self.me, ask).await {
                    let r = Reply::new(
                        cmd.request.clone(),
                        REFUSED,
                        false,
                        format!("refused: {why}"),
                    );
                    return self.reply(&m, cmd.json, &r, false).await;
                }
            }
            // A control command acts on the worker: the guardian and the gate judge it first
            // (a run is judged in its own task, as it may wait for the owner's answer).
            if let Pass::Stop(why) = guarded::judge(&self.ctx, &self.me, &m, &g).await {
                let r = Reply::new(
                    cmd.request.clone(),
                    cmd.action.word(),
                    false,
                    format!("the guardian stopped it: {why}"),
                );
                return self.reply(&m, cmd.json, &r, false).await;
            }
        }
        self.execute(m, cmd, ask).await;
    }

    async fn execute(&mut self, m: Message, cmd: Command, ask: Option<origin::Ask>) {
        let word = cmd.action.word();
        let req = cmd.request.clone();
        let mut reply = match cmd.action {
            Action::Pause | Action::Resume => {
                let run = if cmd.action == Action::Pause {
                    WorkerRun::Paused
                } else {
                    WorkerRun::Running
                };
                let mut next = self.current.state.clone();
                next.state = run;
                match self.set_state(next).await {
                    Ok(()) => Reply::new(
                        req,
                        word,
                        true,
                        format!(
                            "{}: {}",
                            self.me.name,
                            if run == WorkerRun::Paused {
                                "paused"
                            } else {
                                "running"
                            }
                        ),
                    ),
                    Err(e) => Reply::new(
                        req,
                        word,
                        false,
                        format!("could not publish the new state: {e}"),
                    ),
                }
            }
            Action::Status => Reply::new(
                req,
                word,
                true,
                format!(
                    "{} is {}",
                    self.me.name,
                    if self.current.paused() {
                        "paused"
                    } else {
                        "running"
                    }
                ),
            ),
            Action::AdjustParams(changes) => {
                match state::check_params(self.job.specs(), &changes) {
                    Err(why) => Reply::new(req, word, false, format!("params unchanged: {why}")),
                    Ok(()) => {
                        let mut next = self.current.state.clone();
                        next.params.extend(changes);
                        match self.set_state(next).await {
                            Ok(()) => Reply::new(req, word, true, "params adjusted".into()),
                            Err(e) => Reply::new(
                                req,
                                word,
                                false,
                                format!("could not publish the new state: {e}"),
                            ),
                        }
                    }
                }
            }
            Action::Restart => {
                let r = Reply {
                    state: Some(self.current.state.clone()),
                    ..Reply::new(req, word, true, format!("{} is restarting", self.me.name))
                };
                self.reply(&m, cmd.json, &r, false).await;
                // The host aborts this task and starts the agent afresh; ask from a task of
                // its own so that the order outlives this one.
                let (sup, name) = (self.ctx.supervisor.clone(), self.me.name.clone());
                tokio::spawn(async move {
                    if let Err(e) = sup.restart(&name).await {
                        tracing::warn!(worker = %name, "restart failed: {e}");
                    }
                });
                return;
            }
            Action::Run {
                skill,
                named,
                positional,
            } => {
                if self.current.paused() {
                    Reply::new(
                        req,
                        word,
                        false,
                        format!("{} is paused: `resume` it first", self.me.name),
                    )
                } else {
                    match &self.job {
                        Job::Buddy(_) => Reply::new(
                            req,
                            word,
                            false,
                            "the buddy runs no skills: send `run` to an executor".into(),
                        ),
                        Job::Executor(x) => {
                            let ack =
                                Reply::new(req.clone(), word, true, format!("running {skill}…"));
                            self.reply(&m, cmd.json, &ack, true).await;
                            let (x, dm, me, ctx) = (
                                Arc::clone(x),
                                self.dm.clone(),
                                self.me.clone(),
                                self.ctx.clone(),
                            );
                            let current = self.current.clone();
                            // Runs take up to 30 s (a CONFIRM up to 10 min of town time): other
                            // commands (status, pause) go on meanwhile.
                            tokio::spawn(async move {
                                let owner_said = match &ask {
                                    Some(ask) => origin::confirm(&ctx, &me, ask).await,
                                    None => Ok(()),
                                };
                                let r = match owner_said {
                                    Ok(()) => {
                                        guarded::run_skill(
                                            &ctx, &me, &m, &x, &skill, named, positional, req,
                                            &current,
                                        )
                                        .await
                                    }
                                    Err(why) => crate::roles::executor::not_run(
                                        &skill,
                                        req,
                                        format!("the guardian stopped it: {why}"),
                                    ),
                                };
                                if r.result.as_ref().is_some_and(|r| r.timed_out) {
                                    let limit = current
                                        .param(crate::roles::executor::PARAMS, "run_timeout_secs");
                                    suggest::after_timeout(
                                        &ctx.link,
                                        &me,
                                        &skill,
                                        limit as u64,
                                        &ctx.shared.suggesting(),
                                    )
                                    .await;
                                }
                                send_reply(&dm, &m, cmd.json, &r, false).await;
                            });
                            return;
                        }
                    }
                }
            }
        };
        reply.state = Some(self.current.state.clone());
        self.reply(&m, cmd.json, &reply, false).await;
    }

    async fn set_state(&mut self, next: WorkerState) -> Result<(), HostError> {
        let link = &self.ctx.link;
        self.current =
            state::publish(link, &self.me.keys, &self.me.name, next, self.current.at).await?;
        Ok(())
    }

    async fn chat(&mut self, m: Message) {
        let owner = self.ctx.options.roster.owner;
        // Chat is anyone's to start (the buddy answers members; its guard refuses what it
        // must): handled once, so marked, except a stranger's word to the executor below.
        if matches!(self.job, Job::Buddy(_)) || m.sender == owner {
            self.seen.mark(&m);
        }
        match &self.job {
            Job::Buddy(b) => {
                if self.current.paused() {
                    tracing::info!(worker = %self.me.name, "paused: not answering a message");
                    return;
                }
                let max = self.current.param(self.job.specs(), "max_reply_chars");
                let mind = self.ctx.options.minds.of(&self.me.name);
                let text = (**b)
                    .clone()
                    .with_max_chars(max)
                    .answer(&**mind, &self.me.name, &m.text, m.sender == owner)
                    .await;
                let r = Reply::new(None, "chat", true, text);
                let roster = &self.ctx.options.roster;
                if m.sender == owner || roster.members().iter().any(|x| x.pubkey == m.sender) {
                    self.reply(&m, false, &r, false).await;
                } else {
                    let text = r.render(false);
                    crate::roles::buddy::outside::answer(&self.ctx.link, &self.dm, &m, &text).await;
                }
            }
            Job::Executor(_) if m.sender == owner => {
                let text = "I am the executor: I take `run SKILL key=value…`, `status`, `pause`, `resume`, `restart` and `adjust_params key=value`.";
                self.reply(
                    &m,
                    false,
                    &Reply::new(None, "help", true, text.into()),
                    false,
                )
                .await;
            }
            Job::Executor(_) => {
                tracing::debug!(worker = %self.me.name, sender = %m.sender, "not a command; not answering");
            }
        }
    }

    async fn reply(&self, m: &Message, json: bool, r: &Reply, ack: bool) {
        send_reply(&self.dm, m, json, r, ack).await;
    }
}
