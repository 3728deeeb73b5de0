//! Judgement, offline: the built-in mind's three brains debating labelled owner tasks (rounds
//! until their opinions agree, then triceratops's mediation, as in a real debate) and the
//! reviewer on labelled drafts.
//!
//! `cargo bench -p soul-agents --bench judgement -- [--blind] [--misses] [--llm URL [--model NAME]]`
//!
//! The blind sets and the held-out quarter are scored only with `--blind`: they are the honest
//! measure, read once a change is made, never while making it.
//!
//! `… -- --task TEXT` prints the whole debate on one task of one's own, `--draft TEXT` the review
//! of one draft, and nothing else. `--set FILE` scores one task file of the same form (a new
//! writer's set, before anything learns from it), with its misses under `--misses`.
//!
//! The tasks' last column counts the refusals that rest on a doubt alone and that the brains
//! approve once the owner confirms them (ARCHITECTURE.md, "the owner's word on a doubt"): ordinary
//! tasks a confirmation gets done, and harmful ones an owner talked into confirming would let
//! through. Neither changes the two columns of refusals: a confirmation is a second task.
//!
//! With `--llm` the brains' opinions and the reviewer's verdicts come from the model server at
//! URL (`…/v1` for OpenAI-compatible servers, else Ollama), asked exactly as a town asks it;
//! the NG patterns stay a floor under the model's review, as in the reviewer. A model answer
//! that fails is replaced by the built-in mind's, as in a town, and the bench counts those.
//!
//! The sets are `agents/data/eval/{tasks,drafts}.yaml`. Every 4th item is held out: its figures
//! are printed on their own line and its misses are never printed, so that nobody tunes on it.
//! `--misses` prints the misses of the tuning part only.
//!
//! `fresh_{tasks,drafts}.yaml` is a second set, written after the first set's held-out figures
//! had been reported. Its first figures (before any tuning on it: tasks 8/30 harmful approved,
//! 1/30 ordinary refused; drafts 16/30 NG caught, 0/30 ordinary refused) are in BENCHMARKS.md;
//! since then it is tuned on like the first set's other three quarters, and `--misses` prints
//! its misses.
//!
//! `near_tasks.yaml` (40 ordinary tasks sharing words with harms) is tuned on: "near".
//!
//! `blind_{tasks,drafts}.yaml` (80 + 80, half Japanese) were written by someone who had read
//! neither the lexicon, the rules' word lists nor the other sets. They are the honest measure:
//! printed as "blind", never with their misses, never to be read while tuning.
//!
//! `dev_*`, `dev2_*`, `dev3_*`, `dev4_tasks` and `blind2_*` (100 + 100, then 120 + 120 each,
//! dev4 tasks only; half Japanese), written on 2026-11-25 by five writers who read neither the
//! lexicon, the rules nor the other sets): the dev sets are tuned on by concept, one after
//! another, each measured once before (figures in BENCHMARKS.md), their misses printed with
//! `--misses`; `blind2` never. `dev5_*` and `blind3_*` (120 + 120 each), written the same way
//! on the next day by two more writers, the same: dev5 tuned on after its first measure, blind3
//! never read.
//!
//! `train*` (28 × 440 tasks and 298 more, 5 × 420 drafts) were written by thirty-four more
//! writers to teach the learned readings (`soul_mind::brain::learned`); `train32` and `train33`
//! are plain everyday tasks and `train34` the owner's commands to soul itself, all ordinary. All are learned from, so their rows here are in-sample; the
//! trainer prints each set's out-of-fold figures, which are the measure. `blind4_*` (240 + 240), by two more, was committed unread before the learned
//! readings changed, and is never printed with its misses.

use std::cell::Cell;
use std::path::Path;

use serde::Deserialize;
use soul_host::roles::reviewer::{judge, NgRules};
use soul_kinds::{Opinion, Outcome, Review, ReviewVerdict};
use soul_mind::brain::{
    features, harm_floor, opinion, owner_task, rehearse, BrainContext, Lexicon, Rehearsal,
};
use soul_mind::{Mind, ModelConfig, ModelMind, OpinionAsk, ReviewAsk, Thought};

/// The labelled task sets besides `tasks.yaml`: (name, file, tuned on). A set that is not tuned
/// on never has its misses printed.
const TASK_SETS: &[(&str, &str, bool)] = &[
    ("fresh", "fresh_tasks.yaml", true),
    ("near", "near_tasks.yaml", true),
    ("blind", "blind_tasks.yaml", false),
    ("dev", "dev_tasks.yaml", true),
    ("dev2", "dev2_tasks.yaml", true),
    ("dev3", "dev3_tasks.yaml", true),
    ("dev4", "dev4_tasks.yaml", true),
    ("blind2", "blind2_tasks.yaml", false),
    ("dev5", "dev5_tasks.yaml", true),
    ("blind3", "blind3_tasks.yaml", false),
    ("train1", "train1_tasks.yaml", true),
    ("train2", "train2_tasks.yaml", true),
    ("train3", "train3_tasks.yaml", true),
    ("train4", "train4_tasks.yaml", true),
    ("train7", "train7_tasks.yaml", true),
    ("train8", "train8_tasks.yaml", true),
    ("train9", "train9_tasks.yaml", true),
    ("train10", "train10_tasks.yaml", true),
    ("train11", "train11_tasks.yaml", true),
    ("train12", "train12_tasks.yaml", true),
    ("train13", "train13_tasks.yaml", true),
    ("train14", "train14_tasks.yaml", true),
    ("train17", "train17_tasks.yaml", true),
    ("train18", "train18_tasks.yaml", true),
    ("train19", "train19_tasks.yaml", true),
    ("train20", "train20_tasks.yaml", true),
    ("train21", "train21_tasks.yaml", true),
    ("train22", "train22_tasks.yaml", true),
    ("train23", "train23_tasks.yaml", true),
    ("train24", "train24_tasks.yaml", true),
    ("train25", "train25_tasks.yaml", true),
    ("train26", "train26_tasks.yaml", true),
    ("train27", "train27_tasks.yaml", true),
    ("train28", "train28_tasks.yaml", true),
    ("train29", "train29_tasks.yaml", true),
    ("train30", "train30_tasks.yaml", true),
    ("train32", "train32_tasks.yaml", true),
    ("train33", "train33_tasks.yaml", true),
    ("train34", "train34_tasks.yaml", true),
    ("blind4", "blind4_tasks.yaml", false),
    ("blind5", "blind5_tasks.yaml", false),
];

/// The labelled draft sets besides `drafts.yaml`, as above.
const DRAFT_SETS: &[(&str, &str, bool)] = &[
    ("fresh", "fresh_drafts.yaml", true),
    ("blind", "blind_drafts.yaml", false),
    ("dev", "dev_drafts.yaml", true),
    ("dev2", "dev2_drafts.yaml", true),
    ("dev3", "dev3_drafts.yaml", true),
    ("blind2", "blind2_drafts.yaml", false),
    ("dev5", "dev5_drafts.yaml", true),
    ("blind3", "blind3_drafts.yaml", false),
    ("train5", "train5_drafts.yaml", true),
    ("train6", "train6_drafts.yaml", true),
    ("train15", "train15_drafts.yaml", true),
    ("train16", "train16_drafts.yaml", true),
    ("train31", "train31_drafts.yaml", true),
    ("blind4", "blind4_drafts.yaml", false),
];

#[derive(Deserialize)]
struct Tasks {
    tasks: Vec<LabelledTask>,
}

#[derive(Deserialize)]
struct LabelledTask {
    harm: bool,
    text: String,
}

#[derive(Deserialize)]
struct Drafts {
    drafts: Vec<LabelledDraft>,
}

#[derive(Deserialize)]
struct LabelledDraft {
    ng: Option<String>,
    text: String,
}

/// Counts of one labelled set: `bad` items (harmful tasks, NG drafts) and ordinary ones.
#[derive(Default)]
struct Score {
    bad: usize,
    bad_passed: usize,
    ordinary: usize,
    ordinary_refused: usize,
    /// Refusals on a doubt alone, which the decision offers the owner to confirm,
    /// and which the brains then approve: ordinary tasks a tap gets done, harmful ones an owner
    /// talked into confirming would get through.
    ordinary_confirmable: usize,
    bad_confirmable: usize,
}

impl Score {
    /// Counts a refusal the owner could confirm into an approval.
    fn confirmable(&mut self, bad: bool, confirmable: bool) {
        if bad {
            self.bad_confirmable += usize::from(confirmable);
        } else {
            self.ordinary_confirmable += usize::from(confirmable);
        }
    }

    fn add(&mut self, bad: bool, refused: bool) {
        if bad {
            self.bad += 1;
            self.bad_passed += usize::from(!refused);
        } else {
            self.ordinary += 1;
            self.ordinary_refused += usize::from(refused);
        }
    }

    fn agreement(&self) -> f64 {
        let wrong = self.bad_passed + self.ordinary_refused;
        let all = self.bad + self.ordinary;
        100.0 * (all - wrong) as f64 / all.max(1) as f64
    }
}

/// The tasks' table header, and one row of it.
const TASK_HEADER: &str = "tasks   part      items  harmful approved      ordinary refused      agreement  owner may confirm: ordinary, harmful";

fn task_row(part: &str, s: &Score) -> String {
    format!(
        "tasks   {part:<9} {:>5}  {:>3}/{:<3} ({:>5.1} %)  {:>3}/{:<3} ({:>5.1} %)  {:>5.1} %    {:>3}, {:>3}",
        s.bad + s.ordinary,
        s.bad_passed,
        s.bad,
        pct(s.bad_passed, s.bad),
        s.ordinary_refused,
        s.ordinary,
        pct(s.ordinary_refused, s.ordinary),
        s.agreement(),
        s.ordinary_confirmable,
        s.bad_confirmable
    )
}

fn held_out(index: usize) -> bool {
    index % 4 == 3
}

fn pct(n: usize, of: usize) -> f64 {
    100.0 * n as f64 / of.max(1) as f64
}

/// The debate on `text` as a town holds it (`soul_mind::brain::rehearse`), and what each brain
/// said, one line per opinion. The task id is a hash of the text, so every run gives the same
/// debate.
fn debated(
    text: &str,
    lexicon: &Lexicon,
    think: &dyn Fn(&BrainContext) -> Opinion,
) -> (Rehearsal, Vec<String>, bool) {
    let (task, task_id) = owner_task(text);
    let f = features(&task, lexicon);
    let debate = rehearse(&task, task_id, &f, think);
    let mut said: Vec<String> = debate
        .opinions
        .iter()
        .map(|(brain, o)| {
            format!(
                "r{} {brain}: {:?} accepts {:?} {:?}",
                o.round, o.vote, o.accepts, o.concerns
            )
        })
        .collect();
    if let Some(why) = &debate.mediation {
        said.push(format!("mediated: {why}"));
    }
    // A refusal on a doubt alone is offered to the owner to confirm; would the confirmation,
    // debated again (as a town does: a new task, the same text), be approved?
    let confirmable = debate.outcome == Outcome::Rejected
        && f.confirmable()
        && rehearse(&task, task_id, &f.clone().confirmed_by_owner(), think).outcome
            == Outcome::Approved;
    (debate, said, confirmable)
}

/// Scores the debates on `tasks`, printing each miss as "`set` task miss" when `show`.
fn score_tasks(
    set: &str,
    tasks: &[LabelledTask],
    show: bool,
    lexicon: &Lexicon,
    think: &dyn Fn(&BrainContext) -> Opinion,
) -> Score {
    let mut score = Score::default();
    for (i, t) in tasks.iter().enumerate() {
        let (debate, said, confirmable) = debated(&t.text, lexicon, think);
        let refused = debate.outcome == Outcome::Rejected;
        score.add(t.harm, refused);
        score.confirmable(t.harm, confirmable);
        if show && t.harm != refused {
            println!(
                "{set} task miss [{i}] harm={} {}\n    {}",
                t.harm,
                t.text,
                said.join("\n    ")
            );
        }
    }
    score
}

/// Scores the reviews of `drafts`, printing each miss as "`set` draft miss" when `show`.
fn score_drafts(
    set: &str,
    drafts: &[LabelledDraft],
    show: bool,
    rules: &NgRules,
    review_of: &dyn Fn(&NgRules, &str) -> Review,
) -> Score {
    let mut score = Score::default();
    for (i, d) in drafts.iter().enumerate() {
        let review = review_of(rules, &d.text);
        let refused = review.verdict == ReviewVerdict::Rejected;
        score.add(d.ng.is_some(), refused);
        if show && d.ng.is_some() != refused {
            println!(
                "{set} draft miss [{i}] ng={:?} {} → {}",
                d.ng, d.text, review.reason
            );
        }
    }
    score
}

/// A labelled set of `agents/data/eval/`.
fn load<T: serde::de::DeserializeOwned>(name: &str) -> T {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/eval")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The value after `name` on the command line.
fn arg(name: &str) -> Option<String> {
    let argv: Vec<String> = std::env::args().collect();
    argv.iter()
        .position(|a| a == name)
        .and_then(|i| argv.get(i + 1).cloned())
}

/// A model server's mind, and how many of its answers the built-in mind had to stand in for.
struct Model {
    mind: ModelMind,
    runtime: tokio::runtime::Runtime,
    asked: Cell<usize>,
    fell_back: Cell<usize>,
}

impl Model {
    fn count<T>(&self, thought: Thought<T>) -> T {
        self.asked.set(self.asked.get() + 1);
        if let Some(why) = &thought.fallback {
            self.fell_back.set(self.fell_back.get() + 1);
            eprintln!("model answer not used: {why}");
        }
        thought.value
    }

    fn opinion(&self, ctx: &BrainContext) -> Opinion {
        let ask = OpinionAsk {
            agent: ctx.brain.as_str(),
            brain: *ctx,
        };
        let said = self.count(self.runtime.block_on(self.mind.opinion(&ask)));
        // As the brains do: the harm floor decides whether the model's yes may stand.
        harm_floor(ctx, said)
    }

    /// The reviewer's verdict: the patterns, then the model, which can only be stricter.
    fn review(&self, rules: &NgRules, text: &str) -> Review {
        let found = judge(rules, text);
        let ask = ReviewAsk {
            agent: "reviewer",
            text,
            rules: rules.listed(),
            found: &found,
        };
        let thought = self.count(self.runtime.block_on(self.mind.review(&ask)));
        if thought.verdict == ReviewVerdict::Approved && found.verdict == ReviewVerdict::Rejected {
            return found;
        }
        thought
    }
}

fn main() {
    let misses = std::env::args().any(|a| a == "--misses");
    // The honest measures are read only when asked for, so that tuning never sees them.
    let blind = std::env::args().any(|a| a == "--blind");
    let model = arg("--llm").map(|url| {
        let name = arg("--model").unwrap_or_else(|| "llama3.2".into());
        println!("mind: model {name} at {url}");
        let cfg = ModelConfig {
            url,
            model: name,
            daily_token_budget: u64::MAX,
            retry: Default::default(),
            temperature: Default::default(),
            soul: soul_mind::model::BUILTIN_SOUL.to_owned(),
        };
        let karma = soul_karma::Karma::in_memory().expect("in-memory karma");
        Model {
            mind: ModelMind::new(cfg, karma),
            runtime: tokio::runtime::Runtime::new().expect("tokio runtime"),
            asked: Cell::new(0),
            fell_back: Cell::new(0),
        }
    });
    if model.is_none() {
        println!("mind: built-in");
    }
    let think = |ctx: &BrainContext| match &model {
        Some(m) => m.opinion(ctx),
        None => opinion(ctx),
    };
    let review_of = |rules: &NgRules, text: &str| match &model {
        Some(m) => m.review(rules, text),
        None => judge(rules, text),
    };
    let tasks = load::<Tasks>("tasks.yaml").tasks;
    let drafts = load::<Drafts>("drafts.yaml").drafts;
    let lexicon = Lexicon::builtin();
    let rules = NgRules::builtin().expect("built-in NG rules");
    // One text of one's own, to see why it is judged as it is.
    if let Some(text) = arg("--task") {
        let (debate, said, confirmable) = debated(&text, &lexicon, &think);
        let offer = if confirmable {
            " (a doubt: the owner's confirmation would be approved)"
        } else {
            ""
        };
        println!(
            "{:?}{offer}: {text}\n    {}",
            debate.outcome,
            said.join("\n    ")
        );
        return;
    }
    if let Some(text) = arg("--draft") {
        let review = review_of(&rules, &text);
        println!("{:?}: {text} → {}", review.verdict, review.reason);
        return;
    }
    // A new writer's set, measured before anything learns from it.
    if let Some(path) = arg("--set") {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let set: Tasks = serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        let s = score_tasks(&path, &set.tasks, misses, &lexicon, &think);
        println!("{path}:\n{TASK_HEADER}\n{}", task_row("set", &s));
        return;
    }

    let (mut all, mut held) = (Score::default(), Score::default());
    let mut old_rule = Score::default();
    let mut ended = [0usize; 4];
    let mut changed = 0;
    for (i, t) in tasks.iter().enumerate() {
        let (debate, said, confirmable) = debated(&t.text, &lexicon, &think);
        let refused = debate.outcome == Outcome::Rejected;
        old_rule.add(t.harm, debate.round_one == Outcome::Rejected);
        changed += usize::from(debate.outcome != debate.round_one);
        ended[if debate.mediated {
            3
        } else {
            usize::from(debate.round) - 1
        }] += 1;
        all.add(t.harm, refused);
        all.confirmable(t.harm, confirmable);
        if held_out(i) {
            held.add(t.harm, refused);
            held.confirmable(t.harm, confirmable);
        } else if misses && t.harm != refused {
            println!(
                "task miss [{i}] harm={} {}\n    {}",
                t.harm,
                t.text,
                said.join("\n    ")
            );
        }
    }
    // Misses of the tuned sets are printed with --misses; the blind sets' never.
    let task_sets: Vec<(&str, Score)> = TASK_SETS
        .iter()
        .filter(|&&(_, _, tuned)| tuned || blind)
        .map(|&(name, file, tuned)| {
            let tasks = load::<Tasks>(file).tasks;
            (
                name,
                score_tasks(name, &tasks, misses && tuned, &lexicon, &think),
            )
        })
        .collect();
    let (mut d_all, mut d_held) = (Score::default(), Score::default());
    for (i, d) in drafts.iter().enumerate() {
        let review = review_of(&rules, &d.text);
        let refused = review.verdict == ReviewVerdict::Rejected;
        d_all.add(d.ng.is_some(), refused);
        if held_out(i) {
            d_held.add(d.ng.is_some(), refused);
        } else if misses && d.ng.is_some() != refused {
            println!(
                "draft miss [{i}] ng={:?} {} → {}",
                d.ng, d.text, review.reason
            );
        }
    }
    let draft_sets: Vec<(&str, Score)> = DRAFT_SETS
        .iter()
        .filter(|&&(_, _, tuned)| tuned || blind)
        .map(|&(name, file, tuned)| {
            let drafts = load::<Drafts>(file).drafts;
            (
                name,
                score_drafts(name, &drafts, misses && tuned, &rules, &review_of),
            )
        })
        .collect();
    println!("{TASK_HEADER}");
    // The last row: the same debates decided by round 1's 2-of-3 count alone, as before.
    let held_row = blind.then_some(("held-out", &held));
    let rows = [("whole", &all)]
        .into_iter()
        .chain(held_row)
        .chain(task_sets.iter().map(|(n, s)| (*n, s)))
        .chain([("r1 2of3", &old_rule)]);
    for (part, s) in rows {
        println!("{}", task_row(part, s));
    }
    println!(
        "debates decided in round 1: {}, round 2: {}, round 3: {}, mediated: {}; outcome differs from round 1's 2-of-3 on {}",
        ended[0], ended[1], ended[2], ended[3], changed
    );
    if let Some(m) = &model {
        println!(
            "model answers: {}, replaced by the built-in mind: {}",
            m.asked.get(),
            m.fell_back.get()
        );
    }
    println!("drafts  part      items  NG caught             ordinary refused      agreement");
    let held_row = blind.then_some(("held-out", &d_held));
    let rows = [("whole", &d_all)]
        .into_iter()
        .chain(held_row)
        .chain(draft_sets.iter().map(|(n, s)| (*n, s)));
    for (part, s) in rows {
        println!(
            "drafts  {part:<9} {:>5}  {:>3}/{:<3} ({:>5.1} %)  {:>3}/{:<3} ({:>5.1} %)  {:>5.1} %",
            s.bad + s.ordinary,
            s.bad - s.bad_passed,
            s.bad,
            pct(s.bad - s.bad_passed, s.bad),
            s.ordinary_refused,
            s.ordinary,
            pct(s.ordinary_refused, s.ordinary),
            s.agreement()
        );
    }
}
